-- SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
--
-- Wireshark dissector for the metaroce wire protocol, version 2
-- (Documentation/metaroce/protocol.rst, include/uapi/rdma/metaroce_wire.h).
--
-- Decodes the base transport header, the extension of every opcode, the
-- piggybacked ACK, the payload and the trailer: the CRC32C, which it
-- checks, or on a SEALED packet the AES-GCM tag and transmission counter,
-- which it shows but does not verify (Documentation/metaroce/wireshark.rst).
-- Whatever the driver's decode (mro_wire.c) would drop is flagged as a
-- malformed packet, with the receive counter that would count it.
--
-- Use:  wireshark -X lua_script:tools/wireshark/metaroce.lua
--   or: copy this file to ~/.local/lib/wireshark/plugins/
-- The UDP port is the preference metaroce.udp_port (default 4796, the
-- driver's udp_port default).
--
-- Field names are protocol.rst's: metaroce.<header>.<field>, the header
-- being bth, msg, read_resp, atomic, flush, atomic_resp, ack, deth, dseal
-- (the datagram seal extension of a sealed UD_SEND or UD_SEND_IMM), ctrl or
-- hello, and each field's label is the field's name in protocol.rst.

local DEFAULT_UDP_PORT = 4796	-- METAROCE_DEFAULT_UDP_PORT
local WIRE_VERSION = 2		-- METAROCE_WIRE_VERSION
local BTH_LEN = 28
local CRC_LEN = 4
local SEAL_LEN = 24		-- 16-byte tag + be64 counter
local TAG_LEN = 16
local ACK_PIGGY_LEN = 4
local DSEAL_LEN = 8		-- METAROCE_DSEAL_LEN
local SACK_BITS = 128
local MAX_MSG = 0x80000000	-- IB's largest message, 2^31
local SPORT_BASE, SPORT_MASK = 0x200, 0x1ff
local QPN_TOP = 0xff000000	-- bits above METAROCE_QPN_MASK

-- bth.flags
local F_FIRST, F_LAST, F_ACK_REQ, F_SOLICITED = 0x0001, 0x0002, 0x0004, 0x0008
local F_RETX, F_ECT, F_NEW_PORT, F_ACK_PIGGY = 0x0010, 0x0020, 0x0040, 0x0080
local F_SEALED = 0x0100
local F_ALL = 0x003f
local FLAG_NAMES = {
	{ F_FIRST, "FIRST" }, { F_LAST, "LAST" }, { F_ACK_REQ, "ACK_REQ" },
	{ F_SOLICITED, "SOLICITED" }, { F_RETX, "RETX" }, { F_ECT, "ECT" },
	{ F_NEW_PORT, "NEW_PORT" }, { F_ACK_PIGGY, "ACK_PIGGY" },
	{ F_SEALED, "SEALED" },
}

-- enum metaroce_opcode
local OP = {
	SEND = 0x01, SEND_IMM = 0x02, SEND_INV = 0x03, WRITE = 0x04,
	WRITE_IMM = 0x05, READ_REQ = 0x06, CMP_SWAP = 0x07, FETCH_ADD = 0x08,
	FLUSH = 0x09, ATOMIC_WRITE = 0x0a, READ_RESP = 0x10,
	ATOMIC_RESP = 0x11, ACK = 0x12, UD_SEND = 0x20, UD_SEND_IMM = 0x21,
	PROBE = 0x30, CREDIT = 0x31, HELLO = 0x32,
}
local OP_NAMES = {}
for name, value in pairs(OP) do OP_NAMES[value] = name end

-- the extension of each opcode (mro_wire_ext_len()) and whether it has a
-- payload (mro_wire_has_payload())
local EXT_OF = {
	[OP.SEND] = "msg", [OP.SEND_IMM] = "msg", [OP.SEND_INV] = "msg",
	[OP.WRITE] = "msg", [OP.WRITE_IMM] = "msg", [OP.READ_REQ] = "msg",
	[OP.CMP_SWAP] = "atomic", [OP.FETCH_ADD] = "atomic",
	[OP.ATOMIC_WRITE] = "atomic", [OP.FLUSH] = "flush",
	[OP.READ_RESP] = "read_resp", [OP.ATOMIC_RESP] = "atomic_resp",
	[OP.ACK] = "ack", [OP.UD_SEND] = "deth", [OP.UD_SEND_IMM] = "deth",
	[OP.PROBE] = "ctrl", [OP.CREDIT] = "ctrl", [OP.HELLO] = "hello",
}
local HAS_PAYLOAD = {
	[OP.SEND] = true, [OP.SEND_IMM] = true, [OP.SEND_INV] = true,
	[OP.WRITE] = true, [OP.WRITE_IMM] = true, [OP.READ_RESP] = true,
	[OP.UD_SEND] = true, [OP.UD_SEND_IMM] = true,
}

local function is_request(op)
	return op >= OP.SEND and op <= OP.ATOMIC_WRITE
end

local function is_ud(op)
	return op == OP.UD_SEND or op == OP.UD_SEND_IMM
end

-- mro_wire_flags_valid(): the flags an opcode may carry (SEALED on all but
-- HELLO)
local function flags_valid(op)
	if op == OP.HELLO then
		return F_ALL
	end
	if op == OP.PROBE then
		return F_ALL + F_NEW_PORT + F_SEALED
	end
	if is_request(op) then
		return F_ALL + F_ACK_PIGGY + F_SEALED
	end
	return F_ALL + F_SEALED
end

local SYNDROMES = {
	[0] = "ACK", [1] = "RNR_NAK", [2] = "NAK_INVALID", [3] = "NAK_ACCESS",
	[4] = "NAK_OP", [5] = "NAK_RANGE",
}
local PROTS = { [0] = "none", [1] = "auth", [2] = "encrypt" }
local FLUSH_LEVELS = { [0] = "range", [1] = "whole region" }
local CRC_STATUS = { [0] = "Bad", [1] = "Good" }

local proto = Proto("metaroce", "metaroce RDMA over UDP")

-- Field layout of each header: { field, size, kind[, base, value strings] }
-- in wire order; kind "u" is an unsigned integer, "b" bytes.
local D, H = base.DEC, base.HEX
local LAYOUT = {
	bth = {
		{ "ver", 1, "u", H }, { "opcode", 1, "u", H, OP_NAMES },
		{ "flags", 2, "u", H }, { "dqpn", 4, "u", D },
		{ "sqpn", 4, "u", D }, { "psn", 4, "u", D }, { "path", 2, "u", D },
		{ "hdr_len", 2, "u", D }, { "path_seq", 4, "u", D },
		{ "tsval", 4, "u", D },
	},
	msg = {
		{ "msn", 4, "u", D }, { "offset", 4, "u", D },
		{ "length", 4, "u", D }, { "imm", 4, "u", H }, { "va", 8, "u", H },
		{ "rkey", 4, "u", H }, { "first_psn", 4, "u", D },
	},
	read_resp = { { "offset", 4, "u", D }, { "ts_echo", 4, "u", D } },
	atomic = {
		{ "va", 8, "u", H }, { "rkey", 4, "u", H }, { "msn", 4, "u", D },
		{ "swap_add", 8, "u", H }, { "compare", 8, "u", H },
	},
	flush = {
		{ "va", 8, "u", H }, { "rkey", 4, "u", H }, { "length", 4, "u", D },
		{ "msn", 4, "u", D }, { "type", 1, "u", H },
		{ "level", 1, "u", D, FLUSH_LEVELS }, { "rsvd", 2, "u", H },
	},
	atomic_resp = { { "orig", 8, "u", H } },
	ack = {
		{ "syndrome", 1, "u", D, SYNDROMES }, { "nak_code", 1, "u", D },
		{ "sack_bits", 2, "u", D }, { "cum_psn", 4, "u", D },
		{ "nak_psn", 4, "u", D }, { "credit_psn", 4, "u", D },
		{ "sack", 8, "u", H }, { "sack", 8, "u", H },
		{ "ts_echo", 4, "u", D }, { "echo_path", 2, "u", D },
		{ "ecn_ce", 2, "u", D }, { "echo_seq", 4, "u", D },
		{ "rsvd", 4, "u", H },
	},
	deth = { { "qkey", 4, "u", H }, { "imm", 4, "u", H } },
	-- sender_nonce is 56 bits: Wireshark 4.0's Lua has no uint56 field,
	-- so it is a uint64 over its 7 bytes
	dseal = { { "key_id", 1, "u", D }, { "sender_nonce", 7, "u", H } },
	ctrl = {
		{ "token", 4, "u", D }, { "credit_psn", 4, "u", D },
		{ "rsvd", 4, "u", H },
	},
	hello = {
		{ "prot", 1, "u", D, PROTS }, { "key_id", 1, "u", D },
		{ "ack_every", 2, "u", D }, { "msg_window", 2, "u", D },
		{ "sack_bits", 2, "u", D }, { "prev_key_id", 1, "u", D },
		{ "rsvd", 3, "u", H }, { "window", 4, "u", D },
		{ "nonce", 8, "u", H }, { "echo", 8, "u", H },
	},
}
local EXT_TITLE = {
	msg = "Message extension", read_resp = "READ_RESP extension",
	atomic = "Atomic extension", flush = "FLUSH extension",
	atomic_resp = "ATOMIC_RESP extension", ack = "ACK extension",
	deth = "Datagram extension", dseal = "Datagram seal extension",
	ctrl = "Control extension", hello = "HELLO extension",
}

local PF_UINT = {
	[1] = ProtoField.uint8, [2] = ProtoField.uint16, [3] = ProtoField.uint24,
	[4] = ProtoField.uint32, [7] = ProtoField.uint64,
	[8] = ProtoField.uint64,
}

local pf = {}		-- pf[header][field] = ProtoField
local fields = proto.fields
local ext_len = {}	-- bytes of each extension
for _, hdr in ipairs({ "bth", "msg", "read_resp", "atomic", "flush",
		"atomic_resp", "ack", "deth", "dseal", "ctrl", "hello" }) do
	local layout = LAYOUT[hdr]
	pf[hdr] = {}
	local n = 0
	for _, f in ipairs(layout) do
		local name, size, _, fbase, vs = f[1], f[2], f[3], f[4], f[5]
		if not pf[hdr][name] then
			local abbr = "metaroce." .. hdr .. "." .. name
			pf[hdr][name] = PF_UINT[size](abbr, name, fbase, vs)
			fields[#fields + 1] = pf[hdr][name]
		end
		n = n + size
	end
	if hdr ~= "bth" then ext_len[hdr] = n end
end
assert(ext_len.dseal == DSEAL_LEN, "metaroce.lua: dseal layout")

-- the parts of ver, flags and FLUSH's type
local pf_version = ProtoField.uint8("metaroce.bth.ver.version", "version",
	D, nil, 0xf0)
local pf_ver_rsvd = ProtoField.uint8("metaroce.bth.ver.reserved", "reserved",
	H, nil, 0x0f)
local pf_flag = {}
for _, fl in ipairs(FLAG_NAMES) do
	pf_flag[fl[1]] = ProtoField.bool("metaroce.bth.flags." .. fl[2]:lower(),
		fl[2], 16, nil, fl[1])
	fields[#fields + 1] = pf_flag[fl[1]]
end
local pf_flags_undef = ProtoField.uint16("metaroce.bth.flags.undefined",
	"undefined", H, nil, 0xfe00)
local pf_flush_global = ProtoField.bool("metaroce.flush.type.global",
	"global visibility", 8, nil, 0x01)
local pf_flush_persist = ProtoField.bool("metaroce.flush.type.persistent",
	"persistence", 8, nil, 0x02)
local pf_flush_type_undef = ProtoField.uint8("metaroce.flush.type.undefined",
	"undefined", H, nil, 0xfc)

local pf_ack_psn = ProtoField.uint32("metaroce.ack_psn", "ack_psn", D)
local pf_sack_range = ProtoField.string("metaroce.ack.sack_range",
	"SACK range")
local pf_sack_first = ProtoField.uint32("metaroce.ack.sack_range.first",
	"first PSN", D)
local pf_sack_last = ProtoField.uint32("metaroce.ack.sack_range.last",
	"last PSN", D)
local pf_payload = ProtoField.bytes("metaroce.payload", "payload")
local pf_payload_len = ProtoField.uint32("metaroce.payload_len",
	"payload length", D)
local pf_crc = ProtoField.uint32("metaroce.crc", "CRC32C", H)
local pf_crc_computed = ProtoField.uint32("metaroce.crc.computed",
	"computed CRC32C", H)
local pf_crc_status = ProtoField.uint8("metaroce.crc.status", "CRC32C status",
	D, CRC_STATUS)
local pf_tag = ProtoField.bytes("metaroce.seal.tag", "tag")
local pf_counter = ProtoField.uint64("metaroce.seal.counter", "counter", D)
local pf_trailing = ProtoField.bytes("metaroce.undecoded", "undecoded bytes")
for _, f in ipairs({ pf_version, pf_ver_rsvd, pf_flags_undef, pf_flush_global,
		pf_flush_persist, pf_flush_type_undef, pf_ack_psn,
		pf_sack_range, pf_sack_first, pf_sack_last, pf_payload,
		pf_payload_len, pf_crc, pf_crc_computed, pf_crc_status, pf_tag,
		pf_counter, pf_trailing }) do
	fields[#fields + 1] = f
end

-- Expert info: one per verdict of the driver's decode (enum mro_wire_err)
local function malformed(abbr, text)
	return ProtoExpert.new(abbr, text, expert.group.MALFORMED,
		expert.severity.ERROR)
end
local ei = {
	short = malformed("metaroce.short",
		"shorter than its headers and trailer (rx_drop_short)"),
	version = malformed("metaroce.version",
		"not wire version 2 (rx_drop_version)"),
	opcode = malformed("metaroce.opcode.unknown",
		"unknown opcode (rx_drop_opcode)"),
	hdr_len = malformed("metaroce.hdr_len.bad",
		"hdr_len does not match the opcode and flags (rx_drop_hdr_len)"),
	crc = malformed("metaroce.crc.bad", "CRC32C mismatch (rx_drop_crc)"),
	field = malformed("metaroce.field.invalid",
		"invalid field value (rx_drop_field)"),
	length = malformed("metaroce.length.bad",
		"lengths do not add up (rx_drop_length)"),
	sport = ProtoExpert.new("metaroce.sport",
		"UDP source port outside the path ports 512..1023 (rx_drop_sport)",
		expert.group.PROTOCOL, expert.severity.WARN),
}
proto.experts = { ei.short, ei.version, ei.opcode, ei.hdr_len, ei.crc,
	ei.field, ei.length, ei.sport }

proto.prefs.udp_port = Pref.uint("UDP port", DEFAULT_UDP_PORT,
	"UDP destination port of metaroce packets (the driver's udp_port " ..
	"module parameter)")

-- CRC32C (Castagnoli, reflected polynomial 0x82f63b78), as the driver's
-- ~crc32c(~0, ...): bit is the BitOp library every Wireshark with Lua has
local CRC_TABLE = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		if bit.band(c, 1) == 1 then
			c = bit.bxor(bit.rshift(c, 1), 0x82f63b78)
		else
			c = bit.rshift(c, 1)
		end
	end
	CRC_TABLE[i] = c
end

local function crc32c(s)
	local c = bit.bnot(0)
	local byte, band, bxor, rshift = string.byte, bit.band, bit.bxor,
		bit.rshift
	for i = 1, #s do
		c = bxor(CRC_TABLE[band(bxor(c, byte(s, i)), 0xff)], rshift(c, 8))
	end
	return bit.bnot(c) % 4294967296
end
assert(crc32c("123456789") == 0xe3069283, "metaroce.lua: CRC32C self-test")

local function u32(n)
	return n % 4294967296
end

-- add the fields of header hdr at offset off of tvb to tree
local function add_fields(tree, tvb, off, hdr)
	local items = {}
	for _, f in ipairs(LAYOUT[hdr]) do
		local item = tree:add(pf[hdr][f[1]], tvb(off, f[2]))
		if items[f[1]] then
			item:append_text(" [1]")	-- the second sack word
		elseif f[1] == "sack" then
			item:append_text(" [0]")
		end
		items[f[1]] = items[f[1]] or item
		off = off + f[2]
	end
	return items
end

-- SACK: bit i (word i / 64, bit i % 64 from the least significant) set
-- means PSN cum_psn + 1 + i was received; shown as ranges of PSNs
local function sack_bit(tvb, sack_off, i)
	local word = math.floor(i / 64)
	local b = i % 64
	-- the big-endian word's low 32 bits are its second half
	local half = b < 32 and 4 or 0
	local v = tvb(sack_off + word * 8 + half, 4):uint()
	return bit.band(bit.rshift(v, b % 32), 1) == 1
end

local function dissect_sack(tree, tvb, sack_off, cum_psn, sack_bits)
	local ranges = {}
	local start
	for i = 0, SACK_BITS do
		local set = i < SACK_BITS and sack_bit(tvb, sack_off, i)
		if set and not start then
			start = i
		elseif not set and start then
			ranges[#ranges + 1] = { start, i - 1 }
			start = nil
		end
	end
	local beyond = false
	for _, r in ipairs(ranges) do
		local first = u32(cum_psn + 1 + r[1])
		local last = u32(cum_psn + 1 + r[2])
		local text = first == last and tostring(first) or
			(first .. "-" .. last)
		local item = tree:add(pf_sack_range, tvb(sack_off, 16), text)
		item:set_generated()
		item:add(pf_sack_first, tvb(sack_off, 16), first):set_generated()
		item:add(pf_sack_last, tvb(sack_off, 16), last):set_generated()
		if r[2] >= sack_bits then
			beyond = true
		end
	end
	return #ranges, beyond
end

-- validate and note problems: ext checks as mro_wire.c's decode_*()
local function check_ext(ctx)
	local tvb, op, off, items, tree = ctx.tvb, ctx.op, ctx.ext_off,
		ctx.items, ctx.tree
	local hdr = EXT_OF[op]
	local function bad(item, e, text)
		item:add_proto_expert_info(e, text)
	end
	if hdr == "msg" then
		local offset = tvb(off + 4, 4):uint()
		local length = tvb(off + 8, 4):uint()
		local imm = tvb(off + 12, 4):uint()
		if length > MAX_MSG then
			bad(items.length, ei.length, "length above 2^31 (rx_drop_length)")
		elseif op == OP.READ_REQ then
			if offset + length > MAX_MSG then
				bad(items.length, ei.length,
					"offset + length above 2^31 (rx_drop_length)")
			end
			if imm < 256 or imm > 65536 then
				bad(items.imm, ei.length,
					"segment size outside 256..65536 (rx_drop_length)")
			end
		else
			local plen = ctx.payload_len
			if offset + plen > length then
				bad(items.length, ei.length,
					"offset + payload beyond length (rx_drop_length)")
			elseif ctx.flags % 4 >= 2 and offset + plen ~= length then
				bad(items.length, ei.length,
					"LAST but offset + payload is not length (rx_drop_length)")
			end
			if ctx.flags % 2 == 1 and offset ~= 0 then
				bad(items.offset, ei.field,
					"FIRST with a non-zero offset (rx_drop_field)")
			end
		end
	elseif hdr == "atomic" then
		if tvb(off + 7, 1):uint() % 8 ~= 0 then
			bad(items.va, ei.field, "va not 8-byte aligned (rx_drop_field)")
		end
		if op == OP.ATOMIC_WRITE and
		    tvb(off + 24, 8):raw() ~= string.rep("\0", 8) then
			bad(items.compare, ei.field,
				"ATOMIC_WRITE with a non-zero compare (rx_drop_field)")
		end
	elseif hdr == "flush" then
		local ftype = tvb(off + 20, 1):uint()
		local item = items.type
		item:add(pf_flush_global, tvb(off + 20, 1))
		item:add(pf_flush_persist, tvb(off + 20, 1))
		if ftype == 0 or ftype > 3 then
			item:add(pf_flush_type_undef, tvb(off + 20, 1))
			bad(item, ei.field, "type empty or with undefined bits (rx_drop_field)")
		end
		if tvb(off + 21, 1):uint() > 1 then
			bad(items.level, ei.field, "level above 1 (rx_drop_field)")
		end
		if tvb(off + 22, 2):uint() ~= 0 then
			bad(items.rsvd, ei.field, "rsvd not 0 (rx_drop_field)")
		end
	elseif hdr == "read_resp" then
		if tvb(off, 4):uint() + ctx.payload_len > MAX_MSG then
			bad(items.offset, ei.length,
				"offset + payload above 2^31 (rx_drop_length)")
		end
	elseif hdr == "ack" then
		local syndrome = tvb(off, 1):uint()
		local sack_bits = tvb(off + 2, 2):uint()
		local cum_psn = tvb(off + 4, 4):uint()
		if syndrome > 5 then
			bad(items.syndrome, ei.field, "syndrome above 5 (rx_drop_field)")
		end
		if sack_bits > SACK_BITS then
			bad(items.sack_bits, ei.field,
				"sack_bits above 128 (rx_drop_field)")
		end
		local n, beyond = dissect_sack(tree, tvb, off + 16, cum_psn,
			sack_bits)
		if beyond then
			bad(items.sack, ei.field,
				"SACK bit set at or beyond sack_bits (rx_drop_field)")
		end
		if tvb(off + 44, 4):uint() ~= 0 then
			bad(items.rsvd, ei.field, "rsvd not 0 (rx_drop_field)")
		end
		ctx.info = ctx.info .. " " .. (SYNDROMES[syndrome] or "?") ..
			" cum_psn=" .. cum_psn
		if n > 0 then
			ctx.info = ctx.info .. " sack_ranges=" .. n
		end
	elseif hdr == "ctrl" then
		if tvb(off + 8, 4):uint() ~= 0 then
			bad(items.rsvd, ei.field, "rsvd not 0 (rx_drop_field)")
		end
	elseif hdr == "hello" then
		local prot = tvb(off, 1):uint()
		if prot > 2 then
			bad(items.prot, ei.field, "prot above 2 (rx_drop_field)")
		end
		if tvb(off + 9, 3):uint() ~= 0 then
			bad(items.rsvd, ei.field, "rsvd not 0 (rx_drop_field)")
		end
		if tvb(off + 16, 8):raw() == string.rep("\0", 8) then
			bad(items.nonce, ei.field, "nonce 0 (rx_drop_field)")
		end
		ctx.info = ctx.info .. " prot=" .. (PROTS[prot] or prot)
	end
end

local function flag_text(flags)
	local t = {}
	for _, fl in ipairs(FLAG_NAMES) do
		if bit.band(flags, fl[1]) ~= 0 then t[#t + 1] = fl[2] end
	end
	return table.concat(t, ",")
end

function proto.dissector(tvb, pinfo, tree)
	local len = tvb:len()
	pinfo.cols.protocol = "metaroce"
	local root = tree:add(proto, tvb())

	if pinfo.src_port < SPORT_BASE or
	    pinfo.src_port > SPORT_BASE + SPORT_MASK then
		root:add_proto_expert_info(ei.sport)
	end

	if len < BTH_LEN + CRC_LEN then
		root:add_proto_expert_info(ei.short, "UDP payload of " .. len ..
			" bytes, below BTH + CRC (rx_drop_short)")
		pinfo.cols.info = "metaroce: short packet"
		if len > 0 then root:add(pf_trailing, tvb()) end
		return len
	end

	-- base transport header
	local bth = root:add(tvb(0, BTH_LEN), "Base transport header (BTH)")
	local items = add_fields(bth, tvb, 0, "bth")
	local ver = tvb(0, 1):uint()
	local op = tvb(1, 1):uint()
	local flags = tvb(2, 2):uint()
	local hdr_len = tvb(18, 2):uint()
	items.ver:add(pf_version, tvb(0, 1))
	items.ver:add(pf_ver_rsvd, tvb(0, 1))
	for _, fl in ipairs(FLAG_NAMES) do
		items.flags:add(pf_flag[fl[1]], tvb(2, 2))
	end
	if flags >= 0x200 then
		items.flags:add(pf_flags_undef, tvb(2, 2))
	end
	local opname = OP_NAMES[op] or string.format("opcode 0x%02x", op)
	local info = opname .. " dqpn=" .. tvb(4, 4):uint() .. " psn=" ..
		tvb(12, 4):uint()
	if flags ~= 0 then
		info = info .. " [" .. flag_text(flags) .. "]"
	end
	root:append_text(", " .. opname)

	local sealed = bit.band(flags, F_SEALED) ~= 0
	local trailer = sealed and SEAL_LEN or CRC_LEN

	local function add_trailer()
		if len < trailer then
			return
		end
		if sealed then
			local t = root:add(tvb(len - SEAL_LEN, SEAL_LEN),
				"Sealed trailer")
			t:add(pf_tag, tvb(len - SEAL_LEN, TAG_LEN))
				:append_text(" [not verified]")
			t:add(pf_counter, tvb(len - 8, 8))
			return
		end
		local crc_item = root:add(pf_crc, tvb(len - CRC_LEN, CRC_LEN))
		local want = tvb(len - CRC_LEN, CRC_LEN):uint()
		local got = crc32c(tvb:raw(0, len - CRC_LEN))
		crc_item:add(pf_crc_computed, tvb(len - CRC_LEN, CRC_LEN), got)
			:set_generated()
		crc_item:add(pf_crc_status, tvb(len - CRC_LEN, CRC_LEN),
			got == want and 1 or 0):set_generated()
		if got ~= want then
			crc_item:append_text(" [incorrect, should be " ..
				string.format("0x%08x", got) .. "]")
			crc_item:add_proto_expert_info(ei.crc)
		else
			crc_item:append_text(" [correct]")
		end
	end

	-- mro_wire_peek(): version, opcode, hdr_len, length
	if math.floor(ver / 16) ~= WIRE_VERSION then
		items.ver:add_proto_expert_info(ei.version,
			string.format("ver 0x%02x: not version 2 (rx_drop_version)", ver))
		pinfo.cols.info = string.format("metaroce: version %d", math.floor(ver / 16))
		root:add(pf_trailing, tvb(BTH_LEN))
		return len
	end
	if ver % 16 ~= 0 then
		items.ver:add_proto_expert_info(ei.version,
			"reserved nibble of ver not 0 (rx_drop_version)")
	end
	local hdr = EXT_OF[op]
	if not hdr then
		items.opcode:add_proto_expert_info(ei.opcode)
		pinfo.cols.info = info
		root:add(pf_trailing, tvb(BTH_LEN))
		return len
	end
	local valid = flags_valid(op)
	if sealed and bit.band(valid, F_SEALED) == 0 then
		items.flags:add_proto_expert_info(ei.field,
			"SEALED on an opcode that is never sealed (rx_drop_field)")
	end
	local piggy = is_request(op) and bit.band(flags, F_ACK_PIGGY) ~= 0
	-- a sealed datagram carries the datagram seal extension after its own
	local dseal = sealed and is_ud(op)
	local want_len = BTH_LEN + ext_len[hdr] + (dseal and DSEAL_LEN or 0)
	if hdr_len ~= want_len and
	    not (is_request(op) and hdr_len == want_len + ACK_PIGGY_LEN) then
		items.hdr_len:add_proto_expert_info(ei.hdr_len,
			"hdr_len " .. hdr_len .. ", opcode " .. opname ..
			(dseal and " with SEALED" or "") .. " has " ..
			want_len .. (is_request(op) and " or " ..
			(want_len + ACK_PIGGY_LEN) or "") .. " (rx_drop_hdr_len)")
	elseif hdr_len ~= want_len + (piggy and ACK_PIGGY_LEN or 0) then
		items.hdr_len:add_proto_expert_info(ei.hdr_len,
			"hdr_len and ACK_PIGGY disagree (rx_drop_hdr_len)")
	end
	-- decode with the layout opcode and flags give
	local hlen = want_len + (piggy and ACK_PIGGY_LEN or 0)
	if len < math.max(hlen, hdr_len) + trailer then
		root:add_proto_expert_info(ei.short, "UDP payload of " .. len ..
			" bytes, below hdr_len " .. math.max(hlen, hdr_len) ..
			" + trailer " .. trailer .. " (rx_drop_short)")
		pinfo.cols.info = info .. " [short]"
		if len > BTH_LEN then root:add(pf_trailing, tvb(BTH_LEN)) end
		return len
	end

	-- mro_wire_parse(): flags, QPNs, payload, then the extension
	local undefined = bit.band(flags, bit.bnot(valid))
	undefined = bit.band(undefined, bit.bnot(F_SEALED))	-- noted above
	if undefined ~= 0 then
		items.flags:add_proto_expert_info(ei.field, string.format(
			"flags 0x%04x not allowed on %s (rx_drop_field)",
			undefined, opname))
	end
	if tvb(4, 1):uint() ~= 0 then
		items.dqpn:add_proto_expert_info(ei.field,
			"dqpn above 24 bits (rx_drop_field)")
	end
	if tvb(8, 1):uint() ~= 0 then
		items.sqpn:add_proto_expert_info(ei.field,
			"sqpn above 24 bits (rx_drop_field)")
	end

	local ext = root:add(tvb(BTH_LEN, ext_len[hdr]),
		EXT_TITLE[hdr] .. " (" .. ext_len[hdr] .. " bytes)")
	local ctx = {
		tvb = tvb, op = op, flags = flags, ext_off = BTH_LEN,
		items = add_fields(ext, tvb, BTH_LEN, hdr), tree = ext,
		payload_len = len - trailer - hlen, info = info,
	}
	if dseal then
		local off = BTH_LEN + ext_len[hdr]
		local st = root:add(tvb(off, DSEAL_LEN), EXT_TITLE.dseal ..
			" (" .. DSEAL_LEN .. " bytes)")
		local ditems = add_fields(st, tvb, off, "dseal")
		local key_id = tvb(off, 1):uint()
		if key_id == 0 then
			ditems.key_id:add_proto_expert_info(ei.field,
				"key_id 0 (rx_drop_field)")
		end
		if tvb(off + 1, 7):raw() == string.rep("\0", 7) then
			ditems.sender_nonce:add_proto_expert_info(ei.field,
				"sender_nonce 0 (rx_drop_field)")
		end
		ctx.info = ctx.info .. " key_id=" .. key_id
	end
	if piggy then
		root:add(pf_ack_psn, tvb(hlen - ACK_PIGGY_LEN, ACK_PIGGY_LEN))
	end
	local plen = ctx.payload_len
	local pl_item = root:add(pf_payload_len, plen)
	pl_item:set_generated()
	if plen > 0 then
		local item = root:add(pf_payload, tvb(hlen, plen))
		if sealed then
			item:append_text(is_ud(op) and
				" [encrypted if the sender's mode is encrypt]" or
				" [encrypted if the connection's mode is encrypt]")
		end
		if not HAS_PAYLOAD[op] then
			item:add_proto_expert_info(ei.length,
				"payload on " .. opname .. ", which carries none (rx_drop_length)")
		end
	end
	check_ext(ctx)
	add_trailer()
	info = ctx.info
	if plen > 0 then
		info = info .. " len=" .. plen
	end
	pinfo.cols.info = info
	return len
end

-- the UDP port: registered on the preference's value, moved when it changes
local registered_port
local function register_port()
	local udp = DissectorTable.get("udp.port")
	if registered_port and registered_port ~= 0 then
		udp:remove(registered_port, proto)
	end
	registered_port = proto.prefs.udp_port
	if registered_port ~= 0 then
		udp:add(registered_port, proto)
	end
end

function proto.prefs_changed()
	if proto.prefs.udp_port ~= registered_port then
		register_port()
	end
end

register_port()
