package venue

// The zone database is embedded, so Central European time (the allocation
// deadline) is known on a machine without one.
import _ "time/tzdata"
