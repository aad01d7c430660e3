package egress

import "net/netip"

// Address classes refused by default, as words for error messages. Each
// class is checked on the address a connection is actually made to.
var (
	// metadataAddrs are cloud instance-metadata endpoints: refused even when
	// the private network is allowed (AWS, GCP, Azure, OpenStack: the IPv4
	// link-local one; AWS: the IPv6 one; Alibaba: the CGNAT one).
	metadataAddrs = []netip.Addr{
		netip.MustParseAddr("169.254.169.254"),
		netip.MustParseAddr("fd00:ec2::254"),
		netip.MustParseAddr("100.100.100.200"),
	}
	// sharedPrefixes are private in all but name: CGNAT shared space.
	sharedPrefixes = []netip.Prefix{netip.MustParsePrefix("100.64.0.0/10")}
	// reservedPrefixes are never a destination on the internet.
	reservedPrefixes = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),
		netip.MustParsePrefix("192.0.0.0/24"),
		netip.MustParsePrefix("192.0.2.0/24"),
		netip.MustParsePrefix("198.18.0.0/15"),
		netip.MustParsePrefix("198.51.100.0/24"),
		netip.MustParsePrefix("203.0.113.0/24"),
		netip.MustParsePrefix("240.0.0.0/4"),
		netip.MustParsePrefix("2001:db8::/32"),
		netip.MustParsePrefix("100::/64"),
	}
	// nat64 embeds an IPv4 address in its low 32 bits, sixToFour in bits
	// 16-47, and compat (deprecated IPv4-compatible) in its low 32 bits.
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
	compat    = netip.MustParsePrefix("::/96")
)

// embeddedV4 returns the IPv4 address a transition address carries.
func embeddedV4(a netip.Addr) (netip.Addr, string, bool) {
	b := a.As16()
	switch {
	case !a.Is6():
		return netip.Addr{}, "", false
	case nat64.Contains(a):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), "NAT64", true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), "6to4", true
	case compat.Contains(a) && !a.IsLoopback() && !a.IsUnspecified():
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), "IPv4-compatible", true
	}
	return netip.Addr{}, "", false
}

// addrVerdict says why a connection to a may not be made, or "" if it may.
// privateOK is the operator's AllowPrivateNetwork.
func addrVerdict(a netip.Addr, privateOK bool) string {
	a = a.Unmap()
	if v4, kind, ok := embeddedV4(a); ok {
		if why := addrVerdict(v4, privateOK); why != "" {
			return why + " (embedded in a " + kind + " address)"
		}
	}
	for _, m := range metadataAddrs {
		if a == m {
			return "a cloud metadata address, always refused"
		}
	}
	switch {
	case !a.IsValid():
		return "not an IP address"
	case a.IsUnspecified():
		return "an unspecified address, always refused"
	case a.IsMulticast() || a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast():
		return "a multicast address, always refused"
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "the broadcast address, always refused"
	}
	for _, p := range reservedPrefixes {
		if p.Contains(a) {
			return "a reserved address, always refused"
		}
	}
	if privateOK {
		return ""
	}
	switch {
	case a.IsLoopback():
		return "a loopback address"
	case a.IsLinkLocalUnicast():
		return "a link-local address"
	case a.IsPrivate() && a.Is6():
		return "a unique-local address"
	case a.IsPrivate():
		return "a private address"
	}
	for _, p := range sharedPrefixes {
		if p.Contains(a) {
			return "a shared (CGNAT) address"
		}
	}
	return ""
}
