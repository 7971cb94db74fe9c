// The package compiled by tsc (src/ and test/; any type error fails) into a
// temporary directory, beside a package.json that makes it ES modules and
// the package's node_modules. Returns the directory; the caller removes it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

export function compile() {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "chopar-client-"));
  const tsc = path.join(packageDir, "node_modules", "typescript", "bin", "tsc");
  execFileSync(process.execPath, [tsc, "-p", packageDir, "--outDir", outDir], { stdio: "inherit" });
  fs.writeFileSync(path.join(outDir, "package.json"), '{"type": "module"}\n');
  fs.symlinkSync(path.join(packageDir, "node_modules"), path.join(outDir, "node_modules"));
  return outDir;
}
