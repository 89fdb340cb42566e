/**
 * Matches a request (method + path) to an operation of the document in time that does not grow
 * with the size of the document: static paths by one Map lookup, templated paths by a walk of a
 * segment tree as deep as the path.
 */
import type { ContractOperation } from './document.js';

export interface RouteMatch {
  /** The operations of the matched path, by method. */
  readonly methods: ReadonlyMap<string, ContractOperation>;
  readonly pathParams: Record<string, string>;
}

interface Node {
  readonly children: Map<string, Node>;
  param?: { name: string; node: Node };
  methods?: Map<string, ContractOperation>;
}

function newNode(): Node {
  return { children: new Map() };
}

export class OperationRouter {
  private readonly staticPaths = new Map<string, Map<string, ContractOperation>>();
  private readonly tree = newNode();

  constructor(operations: readonly ContractOperation[]) {
    for (const op of operations) this.add(op);
  }

  private add(op: ContractOperation): void {
    let methods: Map<string, ContractOperation>;
    if (!op.path.includes('{')) {
      methods = this.staticPaths.get(op.path) ?? new Map();
      this.staticPaths.set(op.path, methods);
    } else {
      let node = this.tree;
      for (const segment of op.path.split('/').slice(1)) {
        const param = /^\{(.+)\}$/.exec(segment)?.[1];
        if (param !== undefined) {
          if (node.param && node.param.name !== param) {
            throw new Error(`${op.path}: parameter {${param}} clashes with {${node.param.name}}`);
          }
          node.param ??= { name: param, node: newNode() };
          node = node.param.node;
        } else {
          const child = node.children.get(segment) ?? newNode();
          node.children.set(segment, child);
          node = child;
        }
      }
      methods = node.methods ?? new Map();
      node.methods = methods;
    }
    methods.set(op.method, op);
  }

  match(rawPath: string): RouteMatch | undefined {
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const found = this.staticPaths.get(path);
    if (found) return { methods: found, pathParams: {} };
    const params: Record<string, string> = {};
    const node = walk(this.tree, path.split('/').slice(1), 0, params);
    return node?.methods ? { methods: node.methods, pathParams: params } : undefined;
  }
}

/** Static segments win over parameters; a parameter is tried when the static branch fails. */
function walk(node: Node, segments: string[], index: number, params: Record<string, string>): Node | undefined {
  if (index === segments.length) return node.methods ? node : undefined;
  const segment = segments[index]!;
  const child = node.children.get(segment);
  if (child) {
    const found = walk(child, segments, index + 1, params);
    if (found) return found;
  }
  if (node.param && segment !== '') {
    let value: string;
    try {
      value = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    const found = walk(node.param.node, segments, index + 1, params);
    if (found) {
      params[node.param.name] = value;
      return found;
    }
  }
  return undefined;
}
