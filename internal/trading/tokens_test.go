package trading_test

import (
	"errors"
	"testing"

	"github.com/bondvenue/bondvenue/internal/testenv"
	"github.com/bondvenue/bondvenue/internal/trading"
	"github.com/bondvenue/bondvenue/internal/venue"
)

// TestAuthenticateClient: a credential's client id and secret act as its
// user (as FIX logons will); a wrong secret, an unknown client id and a
// revoked credential answer the same unauthenticated error.
func TestAuthenticateClient(t *testing.T) {
	for _, e := range testenv.Engines {
		t.Run(string(e), func(t *testing.T) {
			v := testenv.NewDemoVenue(t, e)
			ctx := t.Context()
			part := v.Creds.Participants[1]
			for _, u := range part.Users {
				p, err := v.Core.Access.AuthenticateClient(ctx, u.ClientID, u.ClientSecret)
				want := venue.Principal{UserID: u.UserID, ParticipantID: part.ID, Role: venue.Role(u.Role), ClientID: u.ClientID}
				if err != nil || p != want {
					t.Errorf("AuthenticateClient(%s) = %+v, %v, want %+v", u.Role, p, err, want)
				}
			}
			u := part.Users[0]
			for name, pair := range map[string][2]string{"wrong secret": {u.ClientID, u.ClientSecret + "x"},
				"unknown client": {"bv_unknown", u.ClientSecret}, "empty": {"", ""}} {
				if _, err := v.Core.Access.AuthenticateClient(ctx, pair[0], pair[1]); !errors.Is(err, venue.ErrUnauthenticated) {
					t.Errorf("AuthenticateClient(%s) = %v, want unauthenticated", name, err)
				}
			}
			if _, err := v.Svc.RevokeCredential(ctx, trading.System, u.ClientID); err != nil {
				t.Fatal(err)
			}
			if _, err := v.Core.Access.AuthenticateClient(ctx, u.ClientID, u.ClientSecret); !errors.Is(err, venue.ErrUnauthenticated) {
				t.Errorf("AuthenticateClient(revoked) = %v, want unauthenticated", err)
			}
		})
	}
}
