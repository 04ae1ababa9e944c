import { describe, expect, it } from 'vitest';
import { childPath, folderName, startFolder } from './folders';

const listing = (path: string) => ({ path, parent: null, folders: [], truncated: false });

describe('folders of the engine machine', () => {
  it('names a subfolder by its whole path, from the top folder too', () => {
    expect(childPath(listing('/home/dev'), 'projects')).toBe('/home/dev/projects');
    expect(childPath(listing('/'), 'home')).toBe('/home');
  });

  it("takes a folder's own name from its path", () => {
    expect(folderName('/home/dev/projects')).toBe('projects');
    expect(folderName('/home/dev/')).toBe('dev');
    expect(folderName('/')).toBe('/');
  });

  it("opens at the form's folder, or the home folder when it names none", () => {
    expect(startFolder(' /srv/app ')).toBe('/srv/app');
    expect(startFolder('  ')).toBe('~');
  });
});
