// Package auth generates and verifies the venue's secrets: client
// credentials hashed with Argon2id, and opaque access tokens stored only as
// SHA-256 hashes (they carry 256 random bits, so a fast hash is enough).
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Hasher hashes client secrets with Argon2id. The parameters are stored in
// each hash, so changing them affects only new secrets.
type Hasher struct {
	Memory  uint32 // KiB
	Time    uint32
	Threads uint8
}

// DefaultHasher follows the OWASP minimum for Argon2id (19 MiB, 2 passes).
var DefaultHasher = Hasher{Memory: 19 * 1024, Time: 2, Threads: 1}

// FastHasher is for tests only: same algorithm, trivial cost.
var FastHasher = Hasher{Memory: 64, Time: 1, Threads: 1}

// Hash returns the PHC string of secret.
func (h Hasher) Hash(secret string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("salt: %w", err)
	}
	key := argon2.IDKey([]byte(secret), salt, h.Time, h.Memory, h.Threads, 32)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.Memory, h.Time, h.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

// ErrMalformedHash reports a stored hash that is not an Argon2id PHC string.
var ErrMalformedHash = errors.New("malformed secret hash")

// Verify reports whether secret matches the PHC string hash, in constant
// time with respect to the secret.
func Verify(hash, secret string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, ErrMalformedHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, ErrMalformedHash
	}
	var mem, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &mem, &t, &p); err != nil || p == 0 || t == 0 {
		return false, ErrMalformedHash
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false, ErrMalformedHash
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, ErrMalformedHash
	}
	got := argon2.IDKey([]byte(secret), salt, t, mem, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// RandomString returns n random bytes, base64url encoded without padding.
func RandomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// NewClientID returns a new client identifier.
func NewClientID() string { return "bv_" + RandomString(12) }

// NewSecret returns a new client secret (256 bits).
func NewSecret() string { return RandomString(32) }

// NewToken returns a new opaque access token (256 bits) and its hash.
func NewToken() (token, hash string) {
	token = RandomString(32)
	return token, TokenHash(token)
}

// TokenHash is the stored form of a token.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
