package toolkit

import "slices"

// Batch collects registrations and removals that Apply makes as one
// change of a toolkit. Register and Unregister copy the registry each
// (calls in flight keep the snapshot they started with), so n of them
// cost O(n²); a batch of n costs O(n) and sends one OnChange.
type Batch struct {
	adds    []batchAdd
	removes []string
}

type batchAdd struct {
	tool Tool
	opts []RegisterOption
}

// Register adds the registration of t, with the options Register takes.
func (b *Batch) Register(t Tool, opts ...RegisterOption) {
	b.adds = append(b.adds, batchAdd{t, opts})
}

// Unregister adds the removal of a tool; a name that is not registered
// when the batch is applied is skipped.
func (b *Batch) Unregister(name string) { b.removes = append(b.removes, name) }

// Len reports how many registrations and removals the batch holds.
func (b *Batch) Len() int { return len(b.adds) + len(b.removes) }

// Apply makes a batch's changes at once: its removals, then its
// registrations in order. Each registration is checked as Register checks
// it (name, input schema compiled now, group, a name not taken unless
// Replacing); when one fails, nothing changes and the error names the
// tool.
func (tk *Toolkit) Apply(b *Batch) error {
	type prepared struct {
		e       *entry
		replace bool
	}
	entries := make([]prepared, len(b.adds))
	for i, a := range b.adds {
		e, replace, err := tk.newEntry(a.tool, a.opts)
		if err != nil {
			return err
		}
		entries[i] = prepared{e, replace}
	}
	return tk.update(func(r *registry) (Change, error) {
		var ch Change
		gone := map[string]bool{}
		for _, name := range b.removes {
			if _, ok := r.tools[name]; ok && !gone[name] {
				gone[name] = true
				delete(r.tools, name)
				ch.Removed = append(ch.Removed, name)
			}
		}
		if len(gone) > 0 {
			r.order = slices.DeleteFunc(r.order, func(s string) bool { return gone[s] })
		}
		for _, p := range entries {
			if err := r.add(p.e, p.replace, &ch); err != nil {
				return Change{}, err
			}
		}
		return ch, nil
	})
}
