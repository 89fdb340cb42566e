/** The project's root folder, from src/ under tsx and from dist/src/ after a build. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(path.join(dir, 'openapi', 'openapi.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`openapi/openapi.json not found above ${start}`);
    dir = parent;
  }
  return dir;
}

export const projectRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));
