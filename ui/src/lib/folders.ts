/**
 * Folders of the engine's machine as the folder browser walks them (`list_folder`): a window on
 * another machine's engine cannot use its own desktop's folder picker, so it asks the engine.
 */
import type { FolderListing } from './bindings';

/** Where the browser opens when the form names no folder: the engine machine's home folder. */
export const HOME = '~';

/** The whole path of `name`, a subfolder of the listed folder. */
export function childPath(listing: FolderListing, name: string): string {
  return listing.path.endsWith('/') ? `${listing.path}${name}` : `${listing.path}/${name}`;
}

/** A folder's own name, the last part of its whole path (the root's is "/"). */
export function folderName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** Where the browser opens: the folder the form names, else the home folder. */
export function startFolder(typed: string): string {
  const folder = typed.trim();
  return folder === '' ? HOME : folder;
}
