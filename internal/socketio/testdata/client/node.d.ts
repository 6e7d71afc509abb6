// The little of Node's library the client uses (the package carries no
// @types/node).
declare module "node:fs" {
  export function existsSync(path: string): boolean;
}
