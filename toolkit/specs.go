package toolkit

import "encoding/json"

// schemaCopier copies schemas into one new array, each capped at its own
// length so that an append reallocates rather than run into the next:
// handing out copies costs one allocation however many schemas there are.
type schemaCopier struct{ buf []byte }

func newSchemaCopier(total int) *schemaCopier { return &schemaCopier{buf: make([]byte, 0, total)} }

// copy returns s's copy (nil stays nil).
func (c *schemaCopier) copy(s json.RawMessage) json.RawMessage {
	if s == nil {
		return nil
	}
	start := len(c.buf)
	c.buf = append(c.buf, s...)
	return c.buf[start:len(c.buf):len(c.buf)]
}

// detachSchemas gives the specs in infos schemas of their own, so that a
// caller changing what Tools returned cannot change the registry's (the
// validators were compiled from those bytes, and they are what the model
// is shown).
func detachSchemas(infos []ToolInfo) {
	n := 0
	for _, in := range infos {
		n += len(in.Spec.InputSchema) + len(in.Spec.OutputSchema)
	}
	c := newSchemaCopier(n)
	for i := range infos {
		sp := &infos[i].Spec
		sp.InputSchema = c.copy(sp.InputSchema)
		sp.OutputSchema = c.copy(sp.OutputSchema)
	}
}

// detachDefinitions does for definitions what detachSchemas does for
// specs, the OpenAI form of each input schema included (and still known
// to be made from the copied input schema, so the export stays cheap).
func detachDefinitions(defs []Definition) {
	n := 0
	for _, d := range defs {
		n += len(d.InputSchema) + len(d.OutputSchema) + len(d.openAI)
	}
	c := newSchemaCopier(n)
	for i := range defs {
		d := &defs[i]
		fresh := d.openAIFresh()
		d.InputSchema = c.copy(d.InputSchema)
		d.OutputSchema = c.copy(d.OutputSchema)
		if fresh {
			d.openAI, d.openAIFrom = c.copy(d.openAI), d.InputSchema
		} else {
			d.openAI, d.openAIFrom = nil, nil
		}
	}
}
