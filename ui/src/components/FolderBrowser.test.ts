import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import type { FolderListing } from '../lib/bindings';
import { apiError } from '../lib/errors';
import { FakeBackend } from '../lib/fakeBackend';
import { folderListing, HOME_LISTING } from '../test/folders';
import { callsOf } from '../test/render';
import FolderBrowser from './FolderBrowser.svelte';

/**
 * The browser over `backend`'s folders, opened at `start`; `onclose` is what it closed with.
 * `told`: what the engine answers the next `list_folder` calls, in turn (its order, hidden folders
 * last; its "more than are listed"). The fake does not take a listing from `answerNext` yet, so
 * the call goes to the fake (recorded, refused as told) and its answer gives way to the told one.
 */
async function browse(backend: FakeBackend, start = '~', told: FolderListing[] = []) {
  const onclose = vi.fn<(chosen: string | null) => void>();
  const list = async (path: string) => {
    const listed = await backend.listFolder(path);
    return told.shift() ?? listed;
  };
  render(FolderBrowser, { props: { start, host: 'dev@box', list, onclose } });
  await waitFor(() => expect(screen.getByTestId('folder-browser').dataset.path).not.toBe(''));
  return { onclose };
}

const shown = () => screen.getByTestId('folder-browser').dataset.path;
const pathText = () => screen.getByTestId('folder-browser-path').textContent;
const names = () => screen.queryAllByTestId('folder-browser-entry').map((entry) => entry.dataset.name);
const entry = (name: string) => screen.getAllByTestId('folder-browser-entry').find((e) => e.dataset.name === name)!;
const up = () => screen.getByTestId('folder-browser-up') as HTMLButtonElement;

async function goTo(path: string) {
  await fireEvent.input(screen.getByTestId('folder-browser-go'), { target: { value: path } });
  await fireEvent.submit(screen.getByTestId('folder-browser-go').closest('form')!);
}

describe('the folder browser', () => {
  it("opens at the engine machine's home folder, its subfolders in the engine's order", async () => {
    const backend = new FakeBackend();
    await browse(backend, '~', [HOME_LISTING]);
    expect(shown()).toBe('/home/dev');
    expect(pathText()).toBe('/home/dev');
    expect(names()).toEqual(['notes', 'projects', '.config']);
    expect(screen.getByRole('dialog').textContent).toContain('Folders on dev@box');
    expect(callsOf(backend, 'list_folder')).toEqual([{ path: '~' }]);
    // The keyboard is in the list, on its first folder.
    expect(document.activeElement).toBe(entry('notes'));
  });

  it('goes into a folder clicked or opened with Enter, and back up', async () => {
    const backend = new FakeBackend();
    await browse(backend);
    await fireEvent.click(entry('projects'));
    await waitFor(() => expect(shown()).toBe('/home/dev/projects'));
    expect(names()).toEqual(['api', 'web']);
    // The keyboard goes on from the folder opened (a click focuses no button in WebKit).
    expect(document.activeElement).toBe(entry('api'));

    await fireEvent.keyDown(entry('web'), { key: 'Enter' });
    await waitFor(() => expect(shown()).toBe('/home/dev/projects/web'));
    expect(names()).toEqual([]);
    expect(screen.getByRole('list').textContent).toContain('No folders in here.');

    await fireEvent.click(up());
    await waitFor(() => expect(shown()).toBe('/home/dev/projects'));
    await fireEvent.click(up());
    await waitFor(() => expect(shown()).toBe('/home/dev'));
    await fireEvent.click(up());
    await waitFor(() => expect(shown()).toBe('/home'));
    await fireEvent.click(up());
    await waitFor(() => expect(shown()).toBe('/'));
    // The top folder has none above it.
    expect(up().disabled).toBe(true);
    expect(names()).toEqual(['home', 'tmp', 'work']);
  });

  it('moves between folders with the arrow keys, and Backspace goes up to the folder left', async () => {
    const backend = new FakeBackend();
    const projects = folderListing('/home/dev/projects', ['api', 'web']);
    await browse(backend, '~', [HOME_LISTING, projects, HOME_LISTING]);
    await fireEvent.keyDown(entry('notes'), { key: 'ArrowDown' });
    expect(document.activeElement).toBe(entry('projects'));
    expect(entry('projects').tabIndex).toBe(0);
    expect(entry('notes').tabIndex).toBe(-1);
    await fireEvent.keyDown(entry('projects'), { key: 'End' });
    expect(document.activeElement).toBe(entry('.config'));
    await fireEvent.keyDown(entry('.config'), { key: 'ArrowUp' });
    await fireEvent.keyDown(entry('projects'), { key: 'Enter' });
    await waitFor(() => expect(shown()).toBe('/home/dev/projects'));
    expect(document.activeElement).toBe(entry('api'));

    await fireEvent.keyDown(entry('api'), { key: 'Backspace' });
    await waitFor(() => expect(shown()).toBe('/home/dev'));
    expect(document.activeElement).toBe(entry('projects'));
  });

  it('goes to a typed path, from the home folder or from the top', async () => {
    const backend = new FakeBackend();
    await browse(backend);
    await goTo('~/projects/api');
    await waitFor(() => expect(shown()).toBe('/home/dev/projects/api'));
    expect((screen.getByTestId('folder-browser-go') as HTMLInputElement).value).toBe('');

    await goTo('/work');
    await waitFor(() => expect(shown()).toBe('/work'));
    expect(callsOf(backend, 'list_folder').map((c) => c.path)).toEqual(['~', '~/projects/api', '/work']);
  });

  it('says in words why a path was refused, and stays where it was', async () => {
    const backend = new FakeBackend();
    await browse(backend);
    backend.failNext('list_folder', apiError('invalid_input', "path: give the folder's whole path, from / (or ~ for the home folder)", 'path'));
    await goTo('projects');
    await screen.findByTestId('folder-browser-error');
    expect(screen.getByTestId('folder-browser-error').textContent).toBe("Give the folder's whole path, from / (or ~ for the home folder).");
    expect(shown()).toBe('/home/dev');
    expect(screen.getByTestId('folder-browser-go').getAttribute('aria-invalid')).toBe('true');

    await goTo('/home/dev/nope');
    await waitFor(() => expect(screen.getByTestId('folder-browser-error').textContent).toBe('There is no folder /home/dev/nope.'));

    // Gone once a folder opens.
    await fireEvent.click(entry('notes'));
    await waitFor(() => expect(shown()).toBe('/home/dev/notes'));
    expect(screen.queryByTestId('folder-browser-error')).toBeNull();
    expect(screen.getByTestId('folder-browser-go').getAttribute('aria-invalid')).toBe('false');
  });

  it("opens at the form's folder, or says it is not one and opens the home folder", async () => {
    await browse(new FakeBackend(), '/home/dev/projects');
    expect(shown()).toBe('/home/dev/projects');
    cleanup();

    await browse(new FakeBackend(), '/home/dev/gone');
    expect(shown()).toBe('/home/dev');
    expect(screen.getByTestId('folder-browser-error').textContent).toBe('There is no folder /home/dev/gone. Showing the home folder instead.');
  });

  it('returns the folder shown with "Use this folder", and nothing with Cancel', async () => {
    const backend = new FakeBackend();
    const { onclose } = await browse(backend);
    await fireEvent.click(entry('projects'));
    await waitFor(() => expect(shown()).toBe('/home/dev/projects'));
    await fireEvent.click(screen.getByTestId('folder-browser-use'));
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(onclose).toHaveBeenCalledWith('/home/dev/projects');
    cleanup();

    const cancelled = await browse(backend);
    await fireEvent.click(screen.getByTestId('folder-browser-cancel'));
    expect(cancelled.onclose).toHaveBeenCalledTimes(1);
    expect(cancelled.onclose).toHaveBeenCalledWith(null);
  });

  it('closes with nothing on Escape', async () => {
    const { onclose } = await browse(new FakeBackend());
    await fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(onclose).toHaveBeenCalledTimes(1);
    expect(onclose).toHaveBeenCalledWith(null);
  });

  it('says when a folder holds more subfolders than are listed', async () => {
    const first = Array.from({ length: 1000 }, (_, i) => `d${String(i).padStart(4, '0')}`);
    const backend = new FakeBackend({ directories: ['/big'] });
    await browse(backend, '/big', [folderListing('/big', first, true)]);
    expect(names()).toHaveLength(1000);
    expect(screen.getByTestId('folder-browser-truncated').textContent).toBe('Only the first 1000 folders are listed.');
  });

  it('shows folder names as text, never as markup', async () => {
    const backend = new FakeBackend({ directories: ['/odd/<img src=x onerror=alert(1)>'] });
    await browse(backend, '/odd');
    expect(names()).toEqual(['<img src=x onerror=alert(1)>']);
    expect(screen.getByTestId('folder-browser').querySelector('img')).toBeNull();
  });
});
