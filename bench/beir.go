package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Doc is one corpus entry of a BEIR dataset.
type Doc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Query is one BEIR query.
type Query struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// Dataset is a BEIR dataset: corpus.jsonl, queries.jsonl, qrels/test.tsv.
type Dataset struct {
	Name    string
	Corpus  []Doc
	Queries []Query
	// Qrels maps query id → doc id → relevance grade.
	Qrels map[string]map[string]int
}

// LoadBEIR reads a dataset directory in the BEIR layout.
func LoadBEIR(dir string) (*Dataset, error) {
	ds := &Dataset{Name: filepath.Base(filepath.Clean(dir)), Qrels: map[string]map[string]int{}}
	if err := readJSONL(filepath.Join(dir, "corpus.jsonl"), func(line []byte) error {
		var d Doc
		if err := json.Unmarshal(line, &d); err != nil {
			return err
		}
		ds.Corpus = append(ds.Corpus, d)
		return nil
	}); err != nil {
		return nil, err
	}
	if err := readJSONL(filepath.Join(dir, "queries.jsonl"), func(line []byte) error {
		var q Query
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		ds.Queries = append(ds.Queries, q)
		return nil
	}); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "qrels", "test.tsv")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read qrels: %w (a BEIR dataset has qrels/test.tsv)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		parts := strings.Split(strings.TrimRight(sc.Text(), "\r"), "\t")
		if len(parts) < 3 {
			continue
		}
		grade, err := strconv.Atoi(strings.TrimSpace(parts[2]))
		if err != nil {
			if n == 1 {
				continue // header line
			}
			return nil, fmt.Errorf("%s:%d: relevance %q is not a number", path, n, parts[2])
		}
		if ds.Qrels[parts[0]] == nil {
			ds.Qrels[parts[0]] = map[string]int{}
		}
		ds.Qrels[parts[0]][parts[1]] = grade
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(ds.Corpus) == 0 || len(ds.Queries) == 0 {
		return nil, fmt.Errorf("%s: empty corpus or queries", dir)
	}
	return ds, nil
}

func readJSONL(path string, each func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read dataset: %w (a BEIR dataset has corpus.jsonl and queries.jsonl)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		if err := each(line); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return sc.Err()
}
