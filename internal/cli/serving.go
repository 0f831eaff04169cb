package cli

import (
	"context"
	"errors"
	"flag"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/sextant-dev/sextant/internal/query"
)

// argRoots is the DIR arguments of a command that takes roots, else the
// working directory.
func argRoots(fs *flag.FlagSet) ([]string, error) {
	if roots := fs.Args(); len(roots) > 0 {
		return roots, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return []string{wd}, nil
}

// openServing opens the serving store (openServingStore) and a serving
// service over it (newServingService) for the roots fs's arguments name
// (argRoots), for the commands that serve until interrupted (serve, ui).
// close closes the service, which shuts down the language servers the
// lsp tools started, then the store.
func openServing(ctx context.Context, e env, dbPath string, fs *flag.FlagSet) (svc *query.Service, close func(), err error) {
	roots, err := argRoots(fs)
	if err != nil {
		return nil, nil, err
	}
	st, err := openServingStore(ctx, e, dbPath)
	if err != nil {
		return nil, nil, err
	}
	svc, err = newServingService(st, roots)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return svc, func() {
		svc.Close()
		st.Close()
	}, nil
}

// serveHTTP serves srv on ln until ctx ends, then shuts it down, giving
// the requests under way 5 seconds to finish.
func serveHTTP(ctx context.Context, srv *http.Server, ln net.Listener) error {
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
