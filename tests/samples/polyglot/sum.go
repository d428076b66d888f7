package polyglot

// Sum adds up the values.
// It returns zero for an empty slice.
func Sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	_ = `raw } string`
	_ = '}'
	return t
}

// Box holds one value.
type Box struct{ v int }

func (b *Box) Get() int { return b.v }
