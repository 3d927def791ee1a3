package linker

import (
	"os"

	"github.com/u-root/u-root/pkg/cpio"
)

// LinuxInitramfs returns the smallest initramfs that boots app as /init
// on a stock Linux kernel (the benchmark harness's other side): the app
// and /dev/console (5,1), which the kernel opens as init's stdin, stdout
// and stderr. Linux passes init its arguments from the kernel command
// line (after "--"), so nothing else is needed.
func LinuxInitramfs(app string) ([]byte, error) {
	bin, err := os.ReadFile(app)
	if err != nil {
		return nil, err
	}
	recs := []cpio.Record{
		cpio.Directory("dev", 0o755),
		cpio.CharDev("dev/console", 0o600, 5, 1),
		cpio.StaticFile("init", string(bin), 0o755),
	}
	return newcArchive(recs)
}
