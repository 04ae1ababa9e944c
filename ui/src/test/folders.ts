/**
 * Folder listings as the engine sends them (`list_folder`): its own order (hidden folders last,
 * each group by name) and its "more than are listed" are the engine's, told by a test.
 */
import type { FolderListing } from '../lib/bindings';

/** The listing of the folder at `path` (a whole path): the folder above it follows from the path. */
export function folderListing(path: string, folders: string[], truncated = false): FolderListing {
  const parent = path === '/' ? null : path.slice(0, path.lastIndexOf('/')) || '/';
  return { path, parent, folders, truncated };
}

/** The fake machine's home folder (/home/dev) as the engine lists it: hidden `.config` last. */
export const HOME_LISTING = folderListing('/home/dev', ['notes', 'projects', '.config']);
