import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import Field from './Field.svelte';
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

describe('Field drawing its own control', () => {
  it('draws an input with the attributes given, named and labelled, and keeps what is typed', async () => {
    render(Field, { props: { id: 'x-input', name: 'x', label: 'X', 'data-testid': 'x-input', placeholder: 'none', autocomplete: 'off' } });
    const input = screen.getByTestId('x-input') as HTMLInputElement;
    expect(input.tagName).toBe('INPUT');
    expect(input.getAttribute('name')).toBe('x');
    expect(input.getAttribute('placeholder')).toBe('none');
    expect(input.classList.contains('panel-input')).toBe(true);
    expect(screen.getByLabelText('X')).toBe(input);
    await fireEvent.input(input, { target: { value: 'typed' } });
    expect(input.value).toBe('typed');
  });

  it('draws a textarea of the rows given, and a select of the options given', () => {
    render(Field, { props: { id: 'a', name: 'a', label: 'A', control: 'textarea', rows: 3, 'data-testid': 'a' } });
    expect(screen.getByTestId('a').tagName).toBe('TEXTAREA');
    expect(screen.getByTestId('a').getAttribute('rows')).toBe('3');
    render(Field, {
      props: { id: 'b', name: 'b', label: 'B', control: 'select', value: 'two', 'data-testid': 'b', options: [{ value: 'one', label: 'One' }, { value: 'two', label: 'Two' }] },
    });
    const select = screen.getByTestId('b') as HTMLSelectElement;
    expect(Array.from(select.options).map((o) => o.textContent)).toEqual(['One', 'Two']);
    expect(select.value).toBe('two');
  });

  it('marks a control at fault without an error under it when told only that it is', () => {
    render(Field, { props: { id: 'c', name: 'c', label: 'C', invalid: true, 'data-testid': 'c' } });
    expect(screen.getByTestId('c').getAttribute('aria-invalid')).toBe('true');
    expect(screen.queryByTestId('error-c')).toBeNull();
  });

  it('ties its drawn control to its error and help, as around a given one', () => {
    render(Field, { props: { id: 'd', name: 'd', label: 'D', error: 'Not a number.', help: 'In minutes.', 'data-testid': 'd' } });
    expect(screen.getByTestId('d').getAttribute('aria-describedby')).toBe('error-d help-d');
    expect(screen.getByTestId('d').nextElementSibling).toBe(screen.getByTestId('error-d'));
  });

  it('gives its label the attributes asked for, in the look of its surroundings', () => {
    render(Field, { props: { id: 'e', name: 'e', label: 'E', look: 'plain', labelAttributes: { class: 'question', 'data-testid': 'e-label' } } });
    const label = screen.getByTestId('e-label');
    expect(label.tagName).toBe('LABEL');
    expect(label.classList.contains('question')).toBe(true);
    expect(label.classList.contains('plain')).toBe(true);
    expect(label.getAttribute('for')).toBe('e');
  });
});
