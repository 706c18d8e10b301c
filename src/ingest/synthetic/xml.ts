/**
 * Minimal XML writing for the synthetic feed: escaping, PLACSP's amount format, and an indenting string
 * builder. A string builder rather than a DOM, so an entry costs one array of strings and one join.
 */

export function escapeText(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function escapeAttr(value: string): string {
  return escapeText(value).replace(/"/g, "&quot;");
}

/** PLACSP amounts: plain decimals, no grouping, no trailing zeros (`57293.5`, `235950`). */
export function formatAmount(value: number): string {
  return value.toFixed(2).replace(/\.?0+$/, "");
}

export type Attrs = Readonly<Record<string, string>>;

/** Indented (4 spaces, as PLACSP does) string builder; text and attributes are escaped on the way in. */
export class XmlWriter {
  readonly #parts: string[] = [];
  #depth: number;

  constructor(depth: number) {
    this.#depth = depth;
  }

  #indent(): string {
    return "    ".repeat(this.#depth);
  }

  #attrs(attrs: Attrs | undefined): string {
    if (!attrs) {
      return "";
    }
    let out = "";
    for (const [name, value] of Object.entries(attrs)) {
      out += ` ${name}="${escapeAttr(value)}"`;
    }
    return out;
  }

  open(tag: string, attrs?: Attrs): this {
    this.#parts.push(`${this.#indent()}<${tag}${this.#attrs(attrs)}>\n`);
    this.#depth++;
    return this;
  }

  close(tag: string): this {
    this.#depth--;
    this.#parts.push(`${this.#indent()}</${tag}>\n`);
    return this;
  }

  leaf(tag: string, text: string, attrs?: Attrs): this {
    this.#parts.push(`${this.#indent()}<${tag}${this.#attrs(attrs)}>${escapeText(text)}</${tag}>\n`);
    return this;
  }

  empty(tag: string, attrs?: Attrs): this {
    this.#parts.push(`${this.#indent()}<${tag}${this.#attrs(attrs)}/>\n`);
    return this;
  }

  amount(tag: string, value: number): this {
    return this.leaf(tag, formatAmount(value), { currencyID: "EUR" });
  }

  /** A pre-rendered fragment written at the same depth. */
  raw(fragment: string): this {
    this.#parts.push(fragment);
    return this;
  }

  toString(): string {
    return this.#parts.join("");
  }
}
