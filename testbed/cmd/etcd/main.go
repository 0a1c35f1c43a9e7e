// Command etcd is the etcd server of the test cluster: etcd's own entry point, built at the
// version kube-apiserver's module requires (Debian's etcd is too old for it).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
