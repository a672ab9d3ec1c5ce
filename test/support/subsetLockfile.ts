/**
 * Test helper: a lockfile for a new project, cut from this repository's own package-lock.json —
 * the packages its dependencies reach there, at the versions resolved there — so that
 * `npm install --offline` can install it from the npm cache that installing this repository
 * filled. A lockfile-less install cannot run offline: npm must read each package's registry
 * document (its packument) to resolve version ranges, and `npm ci` caches only the tarballs.
 * With every resolution in the lockfile, npm takes each tarball from the cache by its integrity.
 *
 * Each dependency named must be one the repository installs at the same version; a package's own
 * dependencies are found as Node would find them, from its folder up. Packages the lockfile does
 * not hold (durable-mcp from a tarball) are left to npm, which reads them from their `file:` spec.
 */

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

export interface Lockfile {
  name?: string;
  version?: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

/**
 * @param lock  the repository's package-lock.json (lockfileVersion 3)
 * @param project  the new project's package.json: its name, version, dependencies, optionalDependencies and devDependencies
 * @param also  packages to bring though the project does not name them (the dependencies of a tarball's package)
 * @throws Error when a named dependency is not in the lockfile at the version named
 */
export function subsetLockfile(
  lock: Lockfile,
  project: { name: string; version: string; dependencies: Record<string, string>; optionalDependencies?: Record<string, string>; devDependencies: Record<string, string> },
  also: string[] = [],
): Lockfile {
  const found = (from: string, name: string): string | undefined => {
    for (let base = from; ; base = base.includes("/node_modules/") ? base.slice(0, base.lastIndexOf("/node_modules/")) : "") {
      const path = `${base ? `${base}/` : ""}node_modules/${name}`;
      if (lock.packages[path]) return path;
      if (!base) return undefined;
    }
  };
  const kept = new Set<string>();
  const queue: string[] = [];
  for (const [name, spec] of Object.entries({ ...project.dependencies, ...project.optionalDependencies, ...project.devDependencies })) {
    const path = found("", name);
    if (path === undefined) {
      if (spec.startsWith("file:")) continue;
      throw new Error(`${name} is not in the repository's package-lock.json: install it here first, at ${spec}`);
    }
    if (lock.packages[path]!.version !== spec) throw new Error(`${name} is ${lock.packages[path]!.version} in the repository's package-lock.json, not ${spec}`);
    queue.push(path);
  }
  for (const name of also) {
    const path = found("", name);
    if (path === undefined) throw new Error(`${name} is not in the repository's package-lock.json`);
    queue.push(path);
  }
  while (queue.length > 0) {
    const path = queue.pop()!;
    if (path === "" || kept.has(path)) continue;
    kept.add(path);
    const entry = lock.packages[path]!;
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) queue.push(found(path, name) ?? "");
  }
  const { name, version, dependencies, optionalDependencies, devDependencies } = project;
  const root = { name, version, dependencies, ...(optionalDependencies && { optionalDependencies }), devDependencies };
  return { name: project.name, version: project.version, lockfileVersion: 3, requires: true, packages: Object.fromEntries([["", root], ...[...kept].sort().map((path) => [path, lock.packages[path]!])]) };
}
