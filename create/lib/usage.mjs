// @ts-check
/** What `create-durable-mcp --help` prints. */
import { DEFAULT_RUNTIMES, RUNTIMES } from "./runtimes.mjs";
import { DEFAULT_DIRECTORY } from "./askOptions.mjs";

export const USAGE = `Usage: npm create durable-mcp@latest [DIRECTORY] -- [options]
       create-durable-mcp [DIRECTORY] [options]

Writes a new MCP server project on durable-mcp into DIRECTORY (default: ${DEFAULT_DIRECTORY}),
which must be missing or empty; its name is the directory's. In a terminal, asks for what the
options leave out; elsewhere, or with --yes, takes the defaults.

Options:
  -r, --runtimes LIST  where it runs, comma-separated: any of ${RUNTIMES.join(", ")}
                       (default: ${DEFAULT_RUNTIMES.join(",")})
      --from TARBALL   depend on a packed durable-mcp (the .tgz npm pack writes) instead of
                       the published one
  -y, --yes            ask nothing: the defaults for what is not given
  -h, --help           print this and exit

Then: cd DIRECTORY && npm install && npm start
`;
