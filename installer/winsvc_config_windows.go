package installer

// The service's configuration, read and written with the service
// manager's calls directly rather than mgr.Config/UpdateConfig, which
// fail as a whole when the manager does not know one of the extended
// settings they always touch (wine's has no delayed start nor SID type);
// here only the delayed start is optional.

import (
	"fmt"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc/mgr"
)

// svcConfig is what the installer sets on the service.
type svcConfig struct {
	ServiceType      uint32
	StartType        uint32
	ErrorControl     uint32
	BinaryPathName   string
	ServiceStartName string
	DisplayName      string
	Description      string
	Delayed          bool // automatic start is delayed
	DelayedKnown     bool // the manager reported Delayed (it may not know the setting)
}

// same reports whether c already is want (Delayed apart: setDelayed).
func (c svcConfig) same(want svcConfig) bool {
	return c.ServiceType == want.ServiceType && c.StartType == want.StartType &&
		c.ErrorControl == want.ErrorControl && c.BinaryPathName == want.BinaryPathName &&
		c.ServiceStartName == want.ServiceStartName && c.DisplayName == want.DisplayName &&
		c.Description == want.Description
}

// wantConfig is the configuration spec asks for.
func wantConfig(spec winServiceSpec) svcConfig {
	c := svcConfig{ServiceType: windows.SERVICE_WIN32_OWN_PROCESS, StartType: mgr.StartAutomatic, Delayed: true,
		ErrorControl: mgr.ErrorNormal, BinaryPathName: spec.CommandLine(), ServiceStartName: "LocalSystem",
		DisplayName: spec.DisplayName, Description: spec.Description}
	if spec.Start == winStartManual {
		c.StartType, c.Delayed = mgr.StartManual, false
	}
	return c
}

// readConfig reads the service's configuration.
func readConfig(sv *mgr.Service) (svcConfig, error) {
	b, err := queryConfig(func(buf []byte, n uint32, need *uint32) error {
		return windows.QueryServiceConfig(sv.Handle, (*windows.QUERY_SERVICE_CONFIG)(unsafe.Pointer(&buf[0])), n, need)
	})
	if err != nil {
		return svcConfig{}, err
	}
	p := (*windows.QUERY_SERVICE_CONFIG)(unsafe.Pointer(&b[0]))
	c := svcConfig{ServiceType: p.ServiceType, StartType: p.StartType, ErrorControl: p.ErrorControl,
		BinaryPathName: windows.UTF16PtrToString(p.BinaryPathName), DisplayName: windows.UTF16PtrToString(p.DisplayName),
		ServiceStartName: windows.UTF16PtrToString(p.ServiceStartName)}
	if b, err := queryConfig2(sv, windows.SERVICE_CONFIG_DESCRIPTION); err == nil {
		c.Description = windows.UTF16PtrToString((*windows.SERVICE_DESCRIPTION)(unsafe.Pointer(&b[0])).Description)
	} else {
		return svcConfig{}, err
	}
	if b, err := queryConfig2(sv, windows.SERVICE_CONFIG_DELAYED_AUTO_START_INFO); err == nil {
		c.Delayed = (*windows.SERVICE_DELAYED_AUTO_START_INFO)(unsafe.Pointer(&b[0])).IsDelayedAutoStartUp != 0
		c.DelayedKnown = true
	} else if !unsupported(err) {
		return svcConfig{}, err
	}
	return c, nil
}

func queryConfig2(sv *mgr.Service, level uint32) ([]byte, error) {
	return queryConfig(func(buf []byte, n uint32, need *uint32) error {
		return windows.QueryServiceConfig2(sv.Handle, level, &buf[0], n, need)
	})
}

// queryConfig calls query with a buffer grown until it fits.
func queryConfig(query func(buf []byte, n uint32, need *uint32) error) ([]byte, error) {
	n := uint32(1024)
	for range 4 {
		b := make([]byte, n)
		err := query(b, n, &n)
		if err == nil {
			return b, nil
		}
		if err != syscall.ERROR_INSUFFICIENT_BUFFER || n <= uint32(len(b)) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("query the service configuration: the buffer keeps growing")
}

// writeConfig sets c on the service (not Delayed: setDelayed).
func writeConfig(sv *mgr.Service, c svcConfig) error {
	ptr := func(s string) *uint16 {
		p, _ := windows.UTF16PtrFromString(s)
		return p
	}
	if err := windows.ChangeServiceConfig(sv.Handle, c.ServiceType, c.StartType, c.ErrorControl,
		ptr(c.BinaryPathName), nil, nil, nil, ptr(c.ServiceStartName), nil, ptr(c.DisplayName)); err != nil {
		return err
	}
	d := windows.SERVICE_DESCRIPTION{Description: ptr(c.Description)}
	return windows.ChangeServiceConfig2(sv.Handle, windows.SERVICE_CONFIG_DESCRIPTION, (*byte)(unsafe.Pointer(&d)))
}

// setDelayed sets the delayed automatic start.
func setDelayed(sv *mgr.Service, delayed bool) error {
	info := windows.SERVICE_DELAYED_AUTO_START_INFO{}
	if delayed {
		info.IsDelayedAutoStartUp = 1
	}
	return windows.ChangeServiceConfig2(sv.Handle, windows.SERVICE_CONFIG_DELAYED_AUTO_START_INFO,
		(*byte)(unsafe.Pointer(&info)))
}

// servicePreshutdownInfo is SERVICE_PRESHUTDOWN_INFO (not in x/sys):
// the preshutdown timeout in milliseconds.
type servicePreshutdownInfo struct {
	PreshutdownTimeout uint32
}

// ensurePreshutdown sets the service's preshutdown timeout to d, where
// the service manager knows the setting (a manager that does not gets a
// warning: the games then have Windows' default time to stop).
func (s *winSession) ensurePreshutdown(sv *mgr.Service, d time.Duration) error {
	want := uint32(d / time.Millisecond)
	if b, err := queryConfig2(sv, windows.SERVICE_CONFIG_PRESHUTDOWN_INFO); err == nil &&
		(*servicePreshutdownInfo)(unsafe.Pointer(&b[0])).PreshutdownTimeout == want {
		s.printf("ok   preshutdown timeout %v (games stop gracefully when the host shuts down)", d)
		return nil
	}
	err := s.act(fmt.Sprintf("set preshutdown timeout %v (games stop gracefully when the host shuts down)", d),
		func() error {
			info := servicePreshutdownInfo{PreshutdownTimeout: want}
			return windows.ChangeServiceConfig2(sv.Handle, windows.SERVICE_CONFIG_PRESHUTDOWN_INFO,
				(*byte)(unsafe.Pointer(&info)))
		})
	if unsupported(err) {
		s.printf("warn the preshutdown timeout is not supported by this system (%v): the games get Windows' default time to stop at a shutdown",
			unwrapAll(err))
		return nil
	}
	return err
}
