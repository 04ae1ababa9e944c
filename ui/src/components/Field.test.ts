import { render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import FieldHarness from '../test/FieldHarness.svelte';

const input = () => screen.getByTestId('thing-input');

describe('Field', () => {
  it('labels its control, with the hint after the label', () => {
    render(FieldHarness, { props: { hint: 'minutes' } });
    const label = screen.getByText('Thing', { exact: false, selector: 'label' });
    expect(label.getAttribute('for')).toBe('thing-input');
    expect(label.textContent).toBe('Thing minutes');
    expect(label.querySelector('.hint')?.textContent).toBe('minutes');
    expect(screen.getByLabelText(/Thing/)).toBe(input());
  });

  it('has no hint when none is given', () => {
    render(FieldHarness);
    expect(screen.getByText('Thing', { selector: 'label' }).querySelector('.hint')).toBeNull();
  });

  it('shows no error and marks nothing while there is none', () => {
    render(FieldHarness);
    expect(screen.queryByTestId('error-thing')).toBeNull();
    expect(input().getAttribute('aria-invalid')).toBeNull();
    expect(input().getAttribute('aria-describedby')).toBeNull();
  });

  it('shows an error under the control, marks the control and ties it to the error', async () => {
    const { rerender } = render(FieldHarness, { props: { error: 'command `nope` was not found' } });
    const error = screen.getByTestId('error-thing');
    expect(error.id).toBe('error-thing');
    expect(error.textContent).toBe('command `nope` was not found');
    // Label, control, error: in that order, with no wrapper of the field's own.
    expect(input().previousElementSibling?.tagName).toBe('LABEL');
    expect(input().nextElementSibling).toBe(error);
    expect(input().getAttribute('aria-invalid')).toBe('true');
    expect(input().getAttribute('aria-describedby')).toBe('error-thing');

    await rerender({ error: null });
    expect(screen.queryByTestId('error-thing')).toBeNull();
    expect(input().getAttribute('aria-invalid')).toBeNull();
    expect(input().getAttribute('aria-describedby')).toBeNull();
  });

  it('says what to enter under the control, not as a placeholder, and keeps it beside an error', async () => {
    const { rerender } = render(FieldHarness, { props: { help: 'A program on PATH, e.g. claude.' } });
    const help = screen.getByTestId('help-thing');
    expect(help.textContent).toBe('A program on PATH, e.g. claude.');
    expect(input().getAttribute('placeholder')).toBeNull();
    expect(input().getAttribute('aria-describedby')).toBe('help-thing');

    await rerender({ error: 'No program named “clod” was found on PATH.' });
    expect(input().getAttribute('aria-describedby')).toBe('error-thing help-thing');
    expect(input().nextElementSibling).toBe(screen.getByTestId('error-thing'));
    expect(screen.getByTestId('error-thing').nextElementSibling).toBe(screen.getByTestId('help-thing'));
  });

  it('shows an error as text, never as markup', () => {
    render(FieldHarness, { props: { error: '<img src=x onerror="window.__pwned=1">' } });
    expect(screen.getByTestId('error-thing').textContent).toBe('<img src=x onerror="window.__pwned=1">');
    expect(document.body.querySelector('img')).toBeNull();
  });
});
