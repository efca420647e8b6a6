package shortid

import "strings"

// Tail returns the part of id that Short would print (the hex tail after
// its last '-', at least 6 characters) and whether id has one at all. Ids
// chosen by hand and ids without a hex tail are always shown in full.
func Tail(id string) (string, bool) {
	i := strings.LastIndexByte(id, '-')
	tail := id[i+1:]
	if i < 0 || len(tail) < 6 || strings.Trim(tail, "0123456789abcdef") != "" {
		return id, false
	}
	return tail, true
}

// Rivals returns the ids among ids that Resolve(tail) could match (see
// Matches), which are all Short needs to see: Short(id, Rivals(tail, ids,
// kind), kind) equals Short(id, ids, kind) for every id whose Tail is
// tail. An index that can find the rivals of a tail without reading every
// id (by prefix and by the ids' own tails) so shortens ids at a cost that
// does not grow with the number of ids.
func Rivals(tail string, ids []string, kind string) []string {
	var out []string
	for _, id := range ids {
		if id == tail || Matches(tail, id, kind) {
			out = append(out, id)
		}
	}
	return out
}
