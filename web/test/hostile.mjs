// hostile.mjs -- scripts/hostile's inputs for the JavaScript tests (the npm
// package's exact mode, js/test/exact.test.mjs, and the page's worker,
// page.test.mjs): each case as [the source the C API compiles, whether
// scripts/hostile runs it in fractions (--exact)].
import { execFileSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function hostileCases() {
  const py = `
import importlib.machinery, importlib.util, json, sys
loader = importlib.machinery.SourceFileLoader('hostile', sys.argv[1])
spec = importlib.util.spec_from_loader('hostile', loader)
h = importlib.util.module_from_spec(spec)
loader.exec_module(h)
print(json.dumps([[h.api_source(c).decode('utf-8', 'replace'), '--exact' in (c[3] or [])]
                  for c in h.CASES]))`;
  return JSON.parse(execFileSync('python3', ['-c', py, join(root, 'scripts', 'hostile')],
    { encoding: 'utf8', maxBuffer: 1 << 28 }));
}
