package postgres

import (
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Why a connection failed, for ConnectError.Reason: callers that explain
// a failed start to an operator choose the fix by it.
var (
	// ErrNoDatabase: the server answered, but the database the URL names
	// does not exist (SQLSTATE 3D000).
	ErrNoDatabase = errors.New("database does not exist")
	// ErrAuth: the server refused the user or password (SQLSTATE 28000,
	// 28P01).
	ErrAuth = errors.New("authentication failed")
	// ErrUnreachable: no server answered at the address.
	ErrUnreachable = errors.New("server unreachable")
)

// ConnectError is a failed first connection: where to, as whom, and why.
// It never holds the password.
type ConnectError struct {
	Addr     string // host:port
	User     string
	Database string
	// Reason is ErrNoDatabase, ErrAuth or ErrUnreachable.
	Reason error
	// Server is the server's message when it answered (for ErrAuth:
	// `password authentication failed for user "x"`).
	Server string
	// Err is the driver's error.
	Err error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("postgres: connect to %s as %s, database %s: %v", e.Addr, e.User, e.Database, e.Err)
}

// Unwrap gives both the reason and the driver's error to errors.Is/As.
func (e *ConnectError) Unwrap() []error { return []error{e.Reason, e.Err} }

// connectError classifies a failed ping of a fresh pool.
func connectError(cfg *pgx.ConnConfig, err error) error {
	ce := &ConnectError{Addr: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), User: cfg.User, Database: cfg.Database, Err: err}
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && pe.Code == "3D000":
		ce.Reason, ce.Server = ErrNoDatabase, pe.Message
	case errors.As(err, &pe) && (pe.Code == "28000" || pe.Code == "28P01"):
		ce.Reason, ce.Server = ErrAuth, pe.Message
	case errors.As(err, &pe):
		return fmt.Errorf("postgres: connect: %w", err)
	default:
		ce.Reason = ErrUnreachable
	}
	return ce
}
