// A trader's own choices that outlive the session (confirm before send,
// the RFQ inbox's sound), kept in localStorage per user id: they are
// preferences, never credentials (the token stays in the tab, see api.ts).

/** PrefStore is the part of Storage the preferences need (localStorage in the browser). */
export interface PrefStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export type Pref = "confirm" | "sound";

function key(name: Pref, userId: string): string {
  return `bondvenue.pref.${name}.${userId}`;
}

/** loadPref reads a user's choice; off when never made or unreadable. */
export function loadPref(s: PrefStore | null, userId: string, name: Pref): boolean {
  if (!s || !userId) return false;
  try {
    return s.getItem(key(name, userId)) === "on";
  } catch {
    return false;
  }
}

/** savePref keeps a user's choice; a full or refused storage keeps it for the session only. */
export function savePref(s: PrefStore | null, userId: string, name: Pref, on: boolean): void {
  if (!s || !userId) return;
  try {
    s.setItem(key(name, userId), on ? "on" : "off");
  } catch {
    /* kept in memory by the caller */
  }
}

/** browserPrefs is localStorage when the browser offers it. */
export function browserPrefs(): PrefStore | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null;
  }
}
