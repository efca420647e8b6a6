package graph

import "testing"

func BenchmarkScratchDF(b *testing.B) {
	db := syntheticDB(b)
	rows, _ := db.Query(`SELECT df, count(*) FROM (SELECT count(*) AS df FROM mentions GROUP BY entity) GROUP BY df ORDER BY df LIMIT 12`)
	defer rows.Close()
	for rows.Next() {
		var df, n int
		rows.Scan(&df, &n)
		b.Logf("df=%d: %d entities", df, n)
	}
}
