/**
 * Which server code lenses the client re-targets. The server gives every lens the command
 * `runway.showCost` with `[uri, data]` (runway_lsp/cost_view.py); a "used by N" lens is better
 * served by VS Code's references peek, so the client maps it to `runway.showUsages` with the
 * lens's document and position (the resource's key), where the server's
 * `textDocument/references` answers with every user. Pure.
 */

export const SHOW_COST = 'runway.showCost';
export const SHOW_USAGES = 'runway.showUsages';

/** Whether a lens command is the server's "used by N" lens. */
export function isUsageLens(command: { command?: string; title?: string } | undefined): boolean {
  return !!command && command.command === SHOW_COST && /^used by \d+$/.test(command.title ?? '');
}
