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
// charge (free routes, or calls refused before the charge). With asJSON
// it is {"charged": 5.1, "balance": 94.9}, balance left out when unknown.
func (c *charges) line(asJSON bool) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen {
		return ""
	}
	if asJSON {
		s := `{"charged": ` + tokensText(c.milli)
		if c.balance != "" {
			s += `, "balance": ` + tokensText(milliTokens(c.balance))
		}
		return s + "}"
	}
	s := "hostgate-cli: charged " + tokensText(c.milli) + " tokens"
	if c.balance != "" {
		s += ", balance " + c.balance
	}
	return s
}

// milliTokens parses a decimal token number ("5", "0.5", "-0.25") into
// thousandths.
func milliTokens(s string) int64 {
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0
	}
	frac = (frac + "000")[:3]
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0
	}
	if neg {
		return -(w*1000 + f)
	}
	return w*1000 + f
}

// tokensText writes thousandths as the hub writes token numbers.
func tokensText(milli int64) string {
	sign := ""
	if milli < 0 {
		sign, milli = "-", -milli
	}
	s := sign + strconv.FormatInt(milli/1000, 10)
	if f := milli % 1000; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%03d", f), "0")
	}
	return s
}
