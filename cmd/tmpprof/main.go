package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/reflectkb/reflect/index"
)

func main() {
	ctx := context.Background()
	ix, err := index.Open(ctx, os.Args[1]+"/documents", os.Args[1]+"/index")
	if err != nil {
		panic(err)
	}
	f, _ := os.Create("/tmp/cpu2.prof")
	pprof.StartCPUProfile(f)
	defer pprof.StopCPUProfile()
	t := time.Now()
	for i := 0; i < 50; i++ {
		_, err := ix.Search(ctx, index.Query{Text: os.Args[2], Limit: 10})
		if err != nil {
			panic(err)
		}
	}
	fmt.Println(time.Since(t) / 50)
	ix.Close()
}
