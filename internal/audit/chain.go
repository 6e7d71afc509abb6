package audit

import "fmt"

// Chain verifies a trail entry by entry, in sequence order, holding only
// the last entry's number and hash: a trail of any length is walked in
// constant memory.
type Chain struct {
	n    int64  // entries verified
	last string // the hash of entry n ("" before entry 1)
}

// Add checks e, the next entry read, against the chain so far and against
// its own content: it returns a *Break when e's content does not give its
// hash, or when e does not follow the last entry (an entry before it is
// missing, or its link names another hash). After a break the chain is
// not to be added to.
func (c *Chain) Add(e Entry) error {
	b := Break{Seq: e.Seq, Want: c.n + 1, WantPrev: c.last, GotPrev: e.PrevHash}
	b.Link = e.Seq != c.n+1 || e.PrevHash != c.last
	b.Content = Hash(e) != e.Hash
	if b.Link || b.Content {
		return &b
	}
	c.n, c.last = e.Seq, e.Hash
	return nil
}

// Len is how many entries have been verified.
func (c *Chain) Len() int64 { return c.n }

// Head is the hash of the last entry verified ("" when none): recorded
// outside the venue, it shows later whether entries were removed from the
// end, which no chain can show by itself.
func (c *Chain) Head() string { return c.last }

// Break is the first entry at which a trail stops holding.
type Break struct {
	// Seq is the entry's sequence number as stored.
	Seq int64
	// Content is set when the entry's content does not give its hash: it
	// was changed after it was written.
	Content bool
	// Link is set when the entry does not follow the one before: Want is
	// the number the next entry should have had (lower than Seq when
	// entries are missing), WantPrev the hash of the entry before it and
	// GotPrev the hash the entry names as its predecessor's.
	Link              bool
	Want              int64
	WantPrev, GotPrev string
}

func (b *Break) Error() string {
	var what string
	switch {
	case b.Link && b.Seq > b.Want:
		what = fmt.Sprintf("its link to the previous entry breaks: entries %d to %d are missing", b.Want, b.Seq-1)
		if b.Seq-1 == b.Want {
			what = fmt.Sprintf("its link to the previous entry breaks: entry %d is missing", b.Want)
		}
	case b.Link && b.Seq < b.Want:
		what = fmt.Sprintf("its link to the previous entry breaks: it repeats a number already used (want %d)", b.Want)
	case b.Link:
		what = fmt.Sprintf("its link to the previous entry breaks: it names %q, the previous entry's hash is %q", b.GotPrev, b.WantPrev)
	}
	if b.Content {
		if what != "" {
			what += "; and "
		}
		what += "its content does not match its hash (it was changed after it was written)"
	}
	return fmt.Sprintf("entry %d: %s", b.Seq, what)
}
