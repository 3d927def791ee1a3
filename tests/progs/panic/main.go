// Panic panics in a goroutine-free program: Go prints the trace and exits 2.
package main

func main() {
	panic("boom from gometal")
}
