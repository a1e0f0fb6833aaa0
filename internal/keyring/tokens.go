package keyring

import (
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Token kinds. Each is a distinct audience, so a token of one kind is never
// accepted where another is expected.
const (
	KindUser  = "user"
	KindAdmin = "admin"
	KindAgent = "agent"
)

const (
	issuer = "hostgate"
	// leeway absorbs clock skew between hub instances.
	leeway = 5 * time.Second
	// maxTokenLen refuses absurd bearer strings before any parsing.
	maxTokenLen = 4096
)

// Claims are what an access token says.
type Claims struct {
	Kind      string
	Subject   string // user, admin or host id
	SessionID string
	Role      string // admin role; empty for other kinds
	IssuedAt  time.Time
	ExpiresAt time.Time
}

type jwtClaims struct {
	jwt.RegisteredClaims
	SessionID string `json:"sid"`
	Role      string `json:"role,omitempty"`
}

// ErrToken is the one error for any token that is not accepted; callers
// answer all such cases alike.
var ErrToken = errors.New("keyring: invalid token")

// SignToken issues an HS256 token valid for ttl.
func (k *Keyring) SignToken(c Claims, ttl time.Duration) (string, Claims, error) {
	now := k.now().UTC().Truncate(time.Second)
	c.IssuedAt, c.ExpiresAt = now, now.Add(ttl)
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, jwtClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    issuer,
			Subject:   c.Subject,
			Audience:  jwt.ClaimStrings{c.Kind},
			IssuedAt:  jwt.NewNumericDate(c.IssuedAt),
			ExpiresAt: jwt.NewNumericDate(c.ExpiresAt),
		},
		SessionID: c.SessionID,
		Role:      c.Role,
	})
	tok.Header["kid"] = k.kid
	s, err := tok.SignedString(k.signing)
	return s, c, err
}

// ParseToken verifies a token of the given kind and returns its claims.
func (k *Keyring) ParseToken(token, kind string) (Claims, error) {
	if len(token) == 0 || len(token) > maxTokenLen {
		return Claims{}, ErrToken
	}
	var jc jwtClaims
	_, err := jwt.ParseWithClaims(token, &jc, k.verificationKey,
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(issuer),
		jwt.WithAudience(kind),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(leeway),
		jwt.WithTimeFunc(k.now),
	)
	if err != nil || jc.Subject == "" || jc.SessionID == "" || jc.IssuedAt == nil || jc.ExpiresAt == nil {
		return Claims{}, ErrToken
	}
	return Claims{
		Kind: kind, Subject: jc.Subject, SessionID: jc.SessionID, Role: jc.Role,
		IssuedAt: jc.IssuedAt.Time, ExpiresAt: jc.ExpiresAt.Time,
	}, nil
}

// verificationKey picks the key a token is verified with: the one its kid
// names among the current and accepted keys. A token without kid (issued
// before tokens carried one) is tried against the current key, then the
// accepted ones. Any other kid, unknown or not a string, is refused.
func (k *Keyring) verificationKey(t *jwt.Token) (any, error) {
	raw, present := t.Header["kid"]
	if !present {
		keys := make([]jwt.VerificationKey, 0, 1+len(k.acceptedSigning))
		keys = append(keys, k.signing)
		for _, key := range k.acceptedSigning {
			keys = append(keys, key)
		}
		return jwt.VerificationKeySet{Keys: keys}, nil
	}
	kid, ok := raw.(string)
	if !ok {
		return nil, ErrToken
	}
	key, ok := k.verify[kid]
	if !ok {
		return nil, ErrToken
	}
	return key, nil
}
