/** A few DOM helpers: elements from a tag, attributes and children, and table building. */

export type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'object' ? child : String(child));
  }
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A table with a caption-less header row; `body` is returned for the caller to fill. */
export function table(className: string, headers: readonly string[], label: string): { table: HTMLTableElement; body: HTMLTableSectionElement } {
  const body = h('tbody');
  const t = h('table', { class: className, 'aria-label': label }, h('thead', {}, h('tr', {}, ...headers.map((name) => h('th', { scope: 'col' }, name)))), body);
  return { table: t, body };
}

export function row(cells: readonly Child[], attrs: Attrs = {}): HTMLTableRowElement {
  return h('tr', attrs, ...cells.map((cell) => (cell instanceof HTMLTableCellElement ? cell : h('td', {}, cell))));
}

/** A cell with a class (numbers are right-aligned by `.num`). */
export function td(content: Child, className = 'num'): HTMLTableCellElement {
  return h('td', { class: className }, content);
}

/** A labelled form field: the label wraps the control so it is announced and clickable. */
export function field(label: string, control: HTMLElement): HTMLLabelElement {
  return h('label', { class: 'field' }, h('span', {}, label), control);
}

export function section(title: string, ...children: Child[]): HTMLElement {
  const id = `s-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return h('section', { class: 'panel', 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}
