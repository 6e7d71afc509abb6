// Bodies of the venue's write requests that the views send, kept in one
// place so a test can hold them to the REST interface (docs/rest-interface.md).

/** userStatusBody is the body of PUT /admin/users/{id} turning a user on or off: updates go in "entity". */
export function userStatusBody(current: string): { entity: { status: "active" | "disabled" } } {
  return { entity: { status: current === "active" ? "disabled" : "active" } };
}
