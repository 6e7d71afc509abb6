package auth

import (
	"errors"
	"strings"
	"testing"
)

func TestHashVerify(t *testing.T) {
	h := FastHasher
	hash, err := h.Hash("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Errorf("Hash() = %q, want an argon2id PHC string with the hasher's parameters", hash)
	}
	if ok, err := Verify(hash, "s3cret"); !ok || err != nil {
		t.Errorf("Verify(right secret) = %v, %v, want true, nil", ok, err)
	}
	if ok, err := Verify(hash, "s3creT"); ok || err != nil {
		t.Errorf("Verify(wrong secret) = %v, %v, want false, nil", ok, err)
	}
	other, _ := h.Hash("s3cret")
	if other == hash {
		t.Error("two hashes of one secret are equal: salt not random")
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=64,t=1,p=1$AAAA$AAAA", "$argon2id$v=19$m=x$AAAA$AAAA",
		"$argon2id$v=19$m=64,t=1,p=1$!!$AAAA"} {
		if _, err := Verify(bad, "s3cret"); !errors.Is(err, ErrMalformedHash) {
			t.Errorf("Verify(%q) error = %v, want ErrMalformedHash", bad, err)
		}
	}
}

func TestTokens(t *testing.T) {
	tok, hash := NewToken()
	if len(tok) < 40 || hash != TokenHash(tok) || len(hash) != 64 {
		t.Errorf("NewToken() = %q, %q: want a long token and its 64-hex SHA-256", tok, hash)
	}
	tok2, _ := NewToken()
	if tok == tok2 {
		t.Error("NewToken returned the same token twice")
	}
	if id := NewClientID(); !strings.HasPrefix(id, "bv_") || len(id) != 19 {
		t.Errorf("NewClientID() = %q, want bv_ and 16 characters", id)
	}
}
