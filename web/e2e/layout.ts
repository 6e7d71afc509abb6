// How the browser journeys check the screen's layout: nothing overflows
// its card, no card overlaps another, and no control is covered by
// anything else, at the window size the page is shown at.
import type { Page } from "playwright-core";

/** viewports are the window sizes the screens are checked at. */
export const viewports = [
  { width: 1024, height: 768 },
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
] as const;

/**
 * layoutProblems measures the page as shown: every card (.panel) of the
 * main area holds its content within its width (no overflow to scroll
 * to), no two cards overlap, the page is no wider than the window, and
 * every control in the window is the element found at its centre (none
 * covered).
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const name = (el: Element) => (el.querySelector("h2")?.textContent ?? el.getAttribute("aria-label") ?? el.className).trim();
    const panels = [...document.querySelectorAll<HTMLElement>("main .panel")].filter((p) => p.getBoundingClientRect().width > 0);
    for (const p of panels) {
      if (p.scrollWidth > p.clientWidth + 1) out.push(`card "${name(p)}" overflows: ${p.scrollWidth} px of content in ${p.clientWidth} px`);
      const r = p.getBoundingClientRect();
      for (const el of p.querySelectorAll<HTMLElement>("table, button, input, select, textarea")) {
        const e = el.getBoundingClientRect();
        if (e.width > 0 && el.checkVisibility() && e.right > r.right + 1) {
          out.push(`card "${name(p)}": ${el.tagName.toLowerCase()} "${(el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 40)}" ends at ${Math.round(e.right)}, past the card's ${Math.round(r.right)}`);
        }
      }
    }
    for (let i = 0; i < panels.length; i++) {
      for (let j = i + 1; j < panels.length; j++) {
        const a = panels[i]!.getBoundingClientRect();
        const b = panels[j]!.getBoundingClientRect();
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 1 && h > 1) out.push(`cards "${name(panels[i]!)}" and "${name(panels[j]!)}" overlap by ${Math.round(w)}×${Math.round(h)} px`);
      }
    }
    if (document.documentElement.scrollWidth > innerWidth + 1) out.push(`the page is ${document.documentElement.scrollWidth} px wide in a ${innerWidth} px window`);
    for (const el of document.querySelectorAll<HTMLElement>("main button, main input, main select, main .hint")) {
      const e = el.getBoundingClientRect();
      if (!el.checkVisibility() || e.width === 0 || e.height === 0 || e.top < 0 || e.bottom > innerHeight || e.left < 0 || e.right > innerWidth) continue;
      const at = document.elementFromPoint(e.left + e.width / 2, e.top + e.height / 2);
      if (at && at !== el && !el.contains(at) && !at.contains(el)) {
        out.push(`${el.tagName.toLowerCase()} "${(el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 40)}" is covered by ${at.tagName.toLowerCase()} "${(at.textContent ?? "").trim().slice(0, 40)}"`);
      }
    }
    return out;
  });
}
