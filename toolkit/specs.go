package toolkit

import "encoding/json"

// detachSchemas gives the specs in infos schemas of their own, so that a
// caller changing what Tools returned cannot change the registry's (the
// validators were compiled from those bytes, and they are what the model
// is shown). All the schemas share one new array, each capped at its own
// length so that an append reallocates rather than run into the next:
// listing the tools costs one allocation more, however many there are.
func detachSchemas(infos []ToolInfo) {
	n := 0
	for _, in := range infos {
		n += len(in.Spec.InputSchema) + len(in.Spec.OutputSchema)
	}
	buf := make([]byte, 0, n)
	detach := func(s json.RawMessage) json.RawMessage {
		if s == nil {
			return nil
		}
		start := len(buf)
		buf = append(buf, s...)
		return buf[start:len(buf):len(buf)]
	}
	for i := range infos {
		sp := &infos[i].Spec
		sp.InputSchema = detach(sp.InputSchema)
		sp.OutputSchema = detach(sp.OutputSchema)
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
	buf := make([]byte, 0, n)
	detach := func(s json.RawMessage) json.RawMessage {
		if s == nil {
			return nil
		}
		start := len(buf)
		buf = append(buf, s...)
		return buf[start:len(buf):len(buf)]
	}
	for i := range defs {
		d := &defs[i]
		fresh := d.openAI != nil && len(d.InputSchema) > 0 && len(d.InputSchema) == len(d.openAIFrom) && &d.InputSchema[0] == &d.openAIFrom[0]
		d.InputSchema = detach(d.InputSchema)
		d.OutputSchema = detach(d.OutputSchema)
		if fresh {
			d.openAI, d.openAIFrom = detach(d.openAI), d.InputSchema
		} else {
			d.openAI, d.openAIFrom = nil, nil
		}
	}
}
