// Command bondvenue runs the bondvenue trading venue: `serve` starts the
// HTTP API, `migrate` applies database migrations, and `admin` performs
// local administration (bootstrap the first operator, onboard
// participants, issue and revoke credentials).
package main

import "github.com/bondvenue/bondvenue/internal/envflag"

func main() { envflag.Main("bondvenue", run) }
