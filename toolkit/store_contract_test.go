package toolkit_test

import (
	"testing"

	"github.com/wasmtools/wasmtools/toolkit"
	"github.com/wasmtools/wasmtools/toolkit/toolkittest"
)

func TestMemoryStoreContract(t *testing.T) {
	toolkittest.StoreContract(t, func(_ *testing.T, limits toolkit.ReadCacheLimits) (toolkit.SessionStore, toolkit.SessionStore) {
		s := toolkit.NewMemoryStoreLimits(limits)
		return s, s
	})
}
