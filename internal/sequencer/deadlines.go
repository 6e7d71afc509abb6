package sequencer

import "time"

// This file holds the sequencer's two deadline heaps: the expiries of
// gtd offers, quotes, RFQs and portfolio RFQs (expiry.go), and the next
// due times of the public tape's pending trades (publish.go).

// expiry is a gtd record's deadline.
type expiry struct {
	at time.Time
	id string
}

type expiryHeap []expiry

func (h expiryHeap) Len() int { return len(h) }

func (h expiryHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }

func (h expiryHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

func (h *expiryHeap) Push(x any) { *h = append(*h, x.(expiry)) }

func (h *expiryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (h expiryHeap) next() (time.Time, bool) {
	if len(h) == 0 {
		return time.Time{}, false
	}
	return h[0].at, true
}

// publication is the next due time of a pending trade.
type publication struct {
	at time.Time
	id string
}

type publicationHeap []publication

func (h publicationHeap) Len() int { return len(h) }

func (h publicationHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }

func (h publicationHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

func (h *publicationHeap) Push(x any) { *h = append(*h, x.(publication)) }

func (h *publicationHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (h publicationHeap) next() (time.Time, bool) {
	if len(h) == 0 {
		return time.Time{}, false
	}
	return h[0].at, true
}
