package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/bondvenue/bondvenue/internal/audit"
	"github.com/bondvenue/bondvenue/internal/store"
)

const auditUsage = `usage: bondvenue admin audit verify [--data-dir D | --database-url U]

Walks the operator's audit trail in sequence order and checks every entry:
its hash against its content, and its link to the entry before. It prints
"audit trail verified: N entries" and the last entry's hash, or names the
first entry that breaks the chain and exits with status 1.
`

// auditCommand runs "admin audit <action>": verify is the only one.
func auditCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "verify" {
		fmt.Fprint(stderr, auditUsage)
		if len(args) == 0 {
			return usageError{Msg: "no audit action given"}
		}
		return usageError{Msg: fmt.Sprintf("unknown audit action %q", args[0])}
	}
	fs := flag.NewFlagSet("admin audit verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var db dbFlags
	db.register(fs, getenv)
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	database, err := db.open(ctx)
	if err != nil {
		return err
	}
	defer database.Close()
	if _, err := database.Migrate(ctx); err != nil {
		return err
	}
	c, err := verifyAudit(ctx, database)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "audit trail verified: %d entries\n", c.Len())
	if c.Len() > 0 {
		fmt.Fprintf(stdout, "last entry's hash: %s\n", c.Head())
	}
	return nil
}

// verifyAudit walks the whole trail in one read transaction, one entry at
// a time, and returns the verified chain, or the first break (an
// *audit.Break) as the error.
func verifyAudit(ctx context.Context, db *store.DB) (audit.Chain, error) {
	var c audit.Chain
	err := db.View(ctx, func(tx *store.Tx) error {
		c = audit.Chain{} // a retried read starts again
		return tx.EachAudit(ctx, c.Add)
	})
	if err != nil {
		return c, fmt.Errorf("audit trail broken at %w", err)
	}
	return c, nil
}
