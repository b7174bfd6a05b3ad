package sim

// UETParams are the Ultra Ethernet transport's settings (Config.Transport
// TransportUET).
type UETParams struct{}
