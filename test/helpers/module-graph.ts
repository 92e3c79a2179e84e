/**
 * The project's modules as TypeScript resolves them (tsconfig.json's options: NodeNext, the
 * `gatehouse-source` condition), read without compiling: `ts.preProcessFile` lists each file's
 * imports, re-exports and dynamic `import()`, type-only ones included, and `ts.resolveModuleName`
 * says which file or package each one names. Layering tests walk it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/** One import of a module: its specifier, and what it names (a project path, or a package). */
export interface ModuleImport {
  readonly specifier: string;
  /** The imported file relative to the project, `/`-separated; undefined for a package or a Node built-in. */
  readonly file?: string;
  /** The imported package's name (`fastify`, `@fastify/websocket`); undefined for the project's own files. */
  readonly packageName?: string;
}

/** How a module reaches a forbidden import: the project files it passes through, then the import. */
export interface ForbiddenPath {
  readonly through: readonly string[];
  readonly imported: ModuleImport;
}

export class ModuleGraph {
  private readonly options: ts.CompilerOptions;
  private readonly importsByFile = new Map<string, readonly ModuleImport[]>();

  constructor(private readonly root: string) {
    const parsed = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    });
    if (!parsed) throw new Error('tsconfig.json could not be read.');
    this.options = parsed.options;
  }

  /** The modules of a folder (or the one file) that ship: TypeScript and JavaScript files, tests left out. */
  modulesOf(path: string): string[] {
    if (/\.[cm]?[jt]s$/.test(path)) return [path];
    return readdirSync(join(this.root, path), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.[cm]?[jt]s$/.test(entry.name) && !/\.test\.[cm]?[jt]s$/.test(entry.name))
      .map((entry) => this.projectPath(join(entry.parentPath, entry.name)))
      .sort();
  }

  /** Every import of one module, resolved. An import nothing resolves, Node's built-ins aside, throws. */
  importsOf(file: string): readonly ModuleImport[] {
    const known = this.importsByFile.get(file);
    if (known) return known;
    const absolute = join(this.root, file);
    const { importedFiles } = ts.preProcessFile(readFileSync(absolute, 'utf8'), true, true);
    const imports = importedFiles.map(({ fileName: specifier }): ModuleImport => {
      const resolved = ts.resolveModuleName(specifier, absolute, this.options, ts.sys).resolvedModule;
      if (!resolved) {
        if (specifier.startsWith('node:')) return { specifier };
        throw new Error(`${file}: the import of '${specifier}' resolves to nothing.`);
      }
      const packageName = resolved.isExternalLibraryImport ? (resolved.packageId?.name ?? specifier) : undefined;
      return packageName === undefined ? { specifier, file: this.projectPath(resolved.resolvedFileName) } : { specifier, packageName };
    });
    this.importsByFile.set(file, imports);
    return imports;
  }

  /**
   * Every way the given modules reach an import that `isForbidden`, through the project's own
   * files (a package's own imports are not followed). A forbidden import is reported, not entered;
   * one that `isExcused` is neither. Each module is walked once: the first path found to it stands.
   */
  forbiddenPaths(
    starts: readonly string[],
    isForbidden: (imported: ModuleImport) => boolean,
    isExcused: (from: string, imported: ModuleImport) => boolean = () => false,
  ): ForbiddenPath[] {
    const found: ForbiddenPath[] = [];
    const visited = new Set<string>();
    const queue = starts.map((start) => [start]);
    for (let path = queue.shift(); path; path = queue.shift()) {
      const file = path.at(-1)!;
      if (visited.has(file)) continue;
      visited.add(file);
      for (const imported of this.importsOf(file)) {
        if (isExcused(file, imported)) continue;
        if (isForbidden(imported)) found.push({ through: path, imported });
        else if (imported.file?.startsWith('src/') && /\.[cm]?[jt]s$/.test(imported.file)) queue.push([...path, imported.file]);
      }
    }
    return found;
  }

  private projectPath(absolute: string): string {
    return relative(this.root, absolute).split(sep).join('/');
  }
}

/** A forbidden path as one line: `a.ts → b.ts → src/http/c.ts`. */
export function describePath({ through, imported }: ForbiddenPath): string {
  return [...through, imported.file ?? imported.packageName ?? imported.specifier].join(' → ');
}
