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
