// Bodies of the venue's write requests that the views send, kept in one
// place so a test can hold them to the REST interface (docs/rest-interface.md).

/** userStatusBody is the body of PUT /admin/users/{id} turning a user on or off: updates go in "entity". */
export function userStatusBody(current: string): { entity: { status: "active" | "disabled" } } {
  return { entity: { status: current === "active" ? "disabled" : "active" } };
}

/** PartyFields are an order's parties as a request body carries them (state/parties.ts). */
export type PartyFields = Partial<Record<"client_id_code" | "investment_decision_id" | "execution_decision_id" | "trading_capacity", string>>;

/** partiesBody is the fields of p that are given (trimmed), or undefined when none is: an accept then sends no body. */
export function partiesBody(p: Record<keyof PartyFields, string>): PartyFields | undefined {
  const out: PartyFields = {};
  for (const k of ["client_id_code", "investment_decision_id", "execution_decision_id", "trading_capacity"] as const) {
    const v = p[k].trim();
    if (v !== "") out[k] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** withParties is an order's body with the given fields of p added. */
export function withParties<B extends object>(body: B, p: Record<keyof PartyFields, string>): B & PartyFields {
  return { ...body, ...partiesBody(p) };
}
