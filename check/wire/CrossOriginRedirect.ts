/**
 * A redirect `send` did not follow because it left the origin the user named: `check` sends the
 * user's `--token` and `--header` values with its requests, and they are meant for that origin
 * only (fetch itself drops just `Authorization` on the way out, not an API key). The probe that
 * met it fails with this message; the run goes on.
 */
export class CrossOriginRedirect extends Error {
  constructor(readonly method: string, readonly from: URL, readonly status: number, readonly to: URL) {
    super(`${method} ${from} was redirected (HTTP ${status}) to another origin, ${to}: not followed`);
  }

  /** What the user does about it, for the finding's `why`. */
  static readonly WHY = "check sends your --token and --header values only to the origin you named. If the server lives at the other origin, check that URL; hosts that follow the redirect send it their credentials.";
}
