package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	hostgate "hostgate/sdk/go"
)

// charges totals what the calls of one command cost, from the charge the
// hub names in each answer (X-Hostgate-Charged, X-Hostgate-Balance), in
// thousandths of a token so that 0.1 + 0.2 is 0.3.
type charges struct {
	mu      sync.Mutex
	seen    bool
	milli   int64
	balance string
}

func (c *charges) note(ch hostgate.Charge) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = true
	c.milli += milliTokens(ch.ChargedText)
	if ch.HasBalance {
		c.balance = ch.BalanceText
	}
}

// line is what the command cost, for stderr: "" when no call named a
// charge (free routes, or calls refused before the charge).
func (c *charges) line() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen {
		return ""
	}
	s := "hostgate-cli: charged " + tokensText(c.milli) + " tokens"
	if c.balance != "" {
		s += ", balance " + c.balance
	}
	return s
}

// milliTokens parses a decimal token number ("5", "0.5") into thousandths.
func milliTokens(s string) int64 {
	whole, frac, _ := strings.Cut(s, ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0
	}
	frac = (frac + "000")[:3]
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0
	}
	return w*1000 + f
}

// tokensText writes thousandths as the hub writes token numbers.
func tokensText(milli int64) string {
	s := strconv.FormatInt(milli/1000, 10)
	if f := milli % 1000; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%03d", f), "0")
	}
	return s
}
