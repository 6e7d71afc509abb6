import { describe, expect, it } from "vitest";
import { describe as describeError } from "../src/client/api";
import { userStatusBody } from "../src/client/requests";

describe("admin requests", () => {
  it("sends a user's new status inside entity, as PUT /admin/users/{id} wants", () => {
    expect(userStatusBody("active")).toEqual({ entity: { status: "disabled" } });
    expect(userStatusBody("disabled")).toEqual({ entity: { status: "active" } });
  });
  it("shows the venue's error field, not the generic message or the raw body", () => {
    expect(describeError(409, { message: "Conflict", error: "a user with e-mail ops@x.example exists", statusCode: 409 })).toBe(
      "a user with e-mail ops@x.example exists",
    );
    expect(describeError(404, { message: "Record Not Found", error: "user not found" })).toBe("user not found");
    expect(describeError(502, "<html><body>Bad gateway</body></html>")).toBe("The venue answered 502");
    expect(describeError(400, { message: "Validation Error", error: "Validation Error", details: [{ field: "status", issue: "must be active or disabled" }] })).toBe(
      "status must be active or disabled",
    );
  });
});
