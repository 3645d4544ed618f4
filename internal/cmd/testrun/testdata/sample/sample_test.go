// Package sample is testrun's fixture: one test of each outcome.
package sample

import "testing"

func TestPasses(t *testing.T) {}

func TestFails(t *testing.T) { t.Error("the failure's own words") }

func TestSkipsAllowed(t *testing.T) { t.Skip("needs what CI may lack") }

func TestSkipsRefused(t *testing.T) { t.Skip("needs something") }

func TestSubtests(t *testing.T) {
	t.Run("passes", func(t *testing.T) {})
	t.Run("skips", func(t *testing.T) { t.Skip("a subtest skip") })
}
