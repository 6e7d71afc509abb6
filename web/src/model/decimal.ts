// Exact decimal arithmetic for prices, quantities and amounts. The venue
// speaks decimal text (or JSON numbers that are exact decimals); the
// screen never turns money into binary floating point. A Dec is an
// integer coefficient and a count of decimal places: 12.345 = {c: 12345n, s: 3}.

export interface Dec {
  readonly c: bigint;
  readonly s: number;
}

const pattern = /^([+-])?(\d+)?(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** parse reads decimal text or a JSON number; null when it is not a finite decimal. */
export function parse(v: string | number | null | undefined): Dec | null {
  if (v === null || v === undefined) return null;
  const text = typeof v === "number" ? (Number.isFinite(v) ? String(v) : "") : v.trim().replace(/[_\s,](?=\d)/g, "");
  const m = pattern.exec(text);
  if (!m || (m[2] === undefined && (m[3] === undefined || m[3] === ""))) return null;
  const intPart = m[2] ?? "0";
  const frac = m[3] ?? "";
  let c = BigInt(intPart + frac);
  let s = frac.length;
  const exp = m[4] ? parseInt(m[4], 10) : 0;
  if (exp > 0) {
    if (exp >= s) {
      c *= 10n ** BigInt(exp - s);
      s = 0;
    } else s -= exp;
  } else s -= exp;
  if (m[1] === "-") c = -c;
  return normalize({ c, s });
}

/** dec parses or throws: for values the code itself produces. */
export function dec(v: string | number): Dec {
  const d = parse(v);
  if (!d) throw new Error(`not a decimal: ${v}`);
  return d;
}

function normalize(d: Dec): Dec {
  let { c, s } = d;
  while (s > 0 && c % 10n === 0n) {
    c /= 10n;
    s--;
  }
  return { c, s };
}

function align(a: Dec, b: Dec): [bigint, bigint, number] {
  const s = Math.max(a.s, b.s);
  return [a.c * 10n ** BigInt(s - a.s), b.c * 10n ** BigInt(s - b.s), s];
}

export function add(a: Dec, b: Dec): Dec {
  const [x, y, s] = align(a, b);
  return normalize({ c: x + y, s });
}

export function sub(a: Dec, b: Dec): Dec {
  const [x, y, s] = align(a, b);
  return normalize({ c: x - y, s });
}

export function mul(a: Dec, b: Dec): Dec {
  return normalize({ c: a.c * b.c, s: a.s + b.s });
}

/** shift multiplies by 10^n (n may be negative): shift(x, -2) is x / 100. */
export function shift(a: Dec, n: number): Dec {
  if (n >= 0) return normalize({ c: a.c * 10n ** BigInt(Math.max(0, n - a.s)), s: Math.max(0, a.s - n) });
  return normalize({ c: a.c, s: a.s - n });
}

export function cmp(a: Dec, b: Dec): number {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function isZero(a: Dec): boolean {
  return a.c === 0n;
}

export function sign(a: Dec): number {
  return a.c < 0n ? -1 : a.c > 0n ? 1 : 0;
}

/** isMultipleOf reports whether a is an exact integer multiple of step (step > 0). */
export function isMultipleOf(a: Dec, step: Dec): boolean {
  const [x, y] = align(a, step);
  return y !== 0n && x % y === 0n;
}

/** places is the number of decimal places a value carries. */
export function places(a: Dec): number {
  return a.s;
}

/** round to n places, half away from zero (the display convention). */
export function round(a: Dec, n: number): Dec {
  if (a.s <= n) return a;
  const f = 10n ** BigInt(a.s - n);
  const q = a.c / f;
  const r = a.c % f;
  const twice = (r < 0n ? -r : r) * 2n;
  const up = twice >= f ? (a.c < 0n ? -1n : 1n) : 0n;
  return { c: q + up, s: n };
}

/** fixed renders a with exactly n places (rounded), digits grouped by thousands when group is set. */
export function fixed(a: Dec, n: number, group = false): string {
  const r = round(a, n);
  let c = r.c * 10n ** BigInt(n - r.s);
  const neg = c < 0n;
  if (neg) c = -c;
  let digits = c.toString().padStart(n + 1, "0");
  const intPart = digits.slice(0, digits.length - n);
  const frac = digits.slice(digits.length - n);
  digits = group ? intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ",") : intPart;
  return (neg ? "-" : "") + digits + (n > 0 ? "." + frac : "");
}

/** text renders a exactly, without exponent or trailing zeros. */
export function text(a: Dec): string {
  return fixed(a, a.s);
}

/** cmpNum compares two decimal values as the API sends them, exactly; unparsable values sort last. */
export function cmpNum(a: string | number | null | undefined, b: string | number | null | undefined): number {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return x ? -1 : y ? 1 : 0;
  return cmp(x, y);
}

/** percentOf is part as a percentage of whole, cut to one decimal place; 0 when either is not a decimal or whole is zero. */
export function percentOf(part: string | number | null | undefined, whole: string | number | null | undefined): number {
  const p = parse(part);
  const w = parse(whole);
  if (!p || !w || w.c === 0n) return 0;
  return Number((p.c * 10n ** BigInt(w.s) * 1000n) / (w.c * 10n ** BigInt(p.s))) / 10;
}
