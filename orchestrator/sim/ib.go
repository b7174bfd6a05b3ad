package sim

// IBParams are an InfiniBand fabric's settings (Config.Transport
// TransportInfiniBand).
type IBParams struct{}
