'use strict';
// A gRPC client that is not ours (Node's @grpc/grpc-js with @grpc/proto-loader, reading the
// project's .proto files) sends malformed, huge and out-of-range fields to every call of the
// management service (a switch and a channel adapter behind one server, chosen by authority) and
// of the admin service, and bytes that are no protobuf message to every method of both; it prints
// one JSON array of {service, method, name, expected, code, codeName, detailsLength, details}.
// NodeClientTest (fabric-manager) starts the servers, runs this, and checks the codes and that
// nothing changed. Usage: node grpc-bad-input.js CONFIG.json, with NODE_PATH naming node_modules.
//
// CONFIG: {protoDir, management: "HOST:PORT", switchAuthority, caAuthority, mKey (decimal),
//          admin: "HOST:PORT", adminToken}

const fs = require('fs');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const definition = protoLoader.loadSync(['fabric/v1/management.proto', 'fabric/v1/admin.proto'], {
  includeDirs: [config.protoDir], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
});
const v1 = grpc.loadPackageDefinition(definition).fabric.v1;

const U31 = 2147483648;        // 2^31 as a uint32
const U32 = 4294967295;        // 2^32 - 1
const U64 = '18446744073709551615';
const I64 = '9223372036854775807';
const HUGE = 'x'.repeat(65536);
const HUGE_BYTES = Buffer.alloc(65536, 7);
const GARBAGE = Buffer.from([0x0a, 0xff, 0x01]); // field 1, a length running past the end
const KEY = config.mKey;
const WRONG = '12345';
const C = grpc.status;

function client(Service, target, authority) {
  return new Service(target, grpc.credentials.createInsecure(), authority ? {'grpc.default_authority': authority} : {});
}

const sw = client(v1.Management, config.management, config.switchAuthority);
const ca = client(v1.Management, config.management, config.caAuthority);
const admin = client(v1.Admin, config.admin);

function metadata(token) {
  const m = new grpc.Metadata();
  if (token) {
    m.set('authorization', 'Bearer ' + token);
  }
  return m;
}

function deadline() {
  return {deadline: Date.now() + 60000};
}

/** The status of a unary call: {code, details}. */
function unary(c, method, request, token) {
  return new Promise((resolve) => {
    c[method](request, metadata(token), deadline(), (err) => {
      resolve(err ? {code: err.code, details: err.details || ''} : {code: C.OK, details: ''});
    });
  });
}

/** The status of a call of PATH with raw bytes for a request (unary or server stream). */
function raw(c, path, streaming, bytes, token) {
  return new Promise((resolve) => {
    const id = (x) => x;
    if (!streaming) {
      c.makeUnaryRequest(path, id, id, bytes, metadata(token), deadline(), (err) => {
        resolve(err ? {code: err.code, details: err.details || ''} : {code: C.OK, details: ''});
      });
      return;
    }
    const call = c.makeServerStreamRequest(path, id, id, bytes, metadata(token), deadline());
    call.on('data', () => {
      call.cancel();
      resolve({code: C.OK, details: ''});
    });
    call.on('error', (err) => resolve({code: err.code, details: err.details || ''}));
  });
}

const block = (n, ports) => ({block: n, ports: ports});
const ok64 = Buffer.alloc(64, 1);

async function main() {
  const version = (await new Promise((resolve, reject) => sw.GetSwitchInfo({}, deadline(),
      (err, r) => (err ? reject(err) : resolve(r))))).table_version;
  const write = (extra) => Object.assign({m_key: KEY, from_version: version, to_version: String(BigInt(version) + 1n)}, extra);
  // [service, client, method, name, request, expected code, admin token]
  const cases = [
    ['Management', sw, 'GetPortInfo', 'port 2^31', {port_number: U31}, C.NOT_FOUND],
    ['Management', sw, 'GetPortInfo', 'port 2^32-1', {port_number: U32}, C.NOT_FOUND],
    ['Management', sw, 'SetPortInfo', 'port 2^31', {m_key: KEY, port_number: U31}, C.NOT_FOUND],
    ['Management', sw, 'SetPortInfo', 'LID 2^32-1', {m_key: KEY, port_number: 1, lid: U32}, C.INVALID_ARGUMENT],
    ['Management', sw, 'SetPortInfo', 'state 99', {m_key: KEY, port_number: 1, state: 99}, C.INVALID_ARGUMENT],
    ['Management', sw, 'SetPortInfo', 'state DOWN', {m_key: KEY, port_number: 1, state: 'PORT_STATE_DOWN'}, C.INVALID_ARGUMENT],
    ['Management', sw, 'SetPortInfo', 'wrong key', {m_key: WRONG, port_number: 1, state: 'PORT_STATE_INIT'}, C.PERMISSION_DENIED],
    ['Management', sw, 'SetAllPortInfo', 'LID 2^31', {m_key: KEY, lid: U31}, C.INVALID_ARGUMENT],
    ['Management', sw, 'SetAllPortInfo', 'state 77', {m_key: KEY, state: 77}, C.INVALID_ARGUMENT],
    ['Management', sw, 'SetAllPortInfo', 'no key', {state: 'PORT_STATE_INIT'}, C.PERMISSION_DENIED],
    ['Management', ca, 'GetSwitchInfo', 'of an adapter', {}, C.UNIMPLEMENTED],
    ['Management', sw, 'GetLftBlock', 'block 2^31', {block: U31}, C.INVALID_ARGUMENT],
    ['Management', sw, 'GetLftBlock', 'block 2^32-1', {block: U32}, C.INVALID_ARGUMENT],
    ['Management', sw, 'GetArTables', 'block 2^31', {block: U31}, C.INVALID_ARGUMENT],
    ['Management', sw, 'WriteTables', 'to_version 2^63-1', write({to_version: I64}), C.OUT_OF_RANGE],
    ['Management', sw, 'WriteTables', 'to_version 2^64-1', write({to_version: U64}), C.OUT_OF_RANGE],
    ['Management', sw, 'WriteTables', 'from_version 2^64-1', write({from_version: U64}), C.FAILED_PRECONDITION],
    ['Management', sw, 'WriteTables', 'block 2^31', write({lft_blocks: [block(U31, ok64)]}), C.INVALID_ARGUMENT],
    ['Management', sw, 'WriteTables', 'a 64 KB block', write({lft_blocks: [block(0, HUGE_BYTES)]}), C.INVALID_ARGUMENT],
    ['Management', sw, 'WriteTables', 'lft_top 2^32-1', write({lft_top: U32}), C.INVALID_ARGUMENT],
    ['Management', sw, 'WriteTables', 'a 64 KB SL-to-VL map', write({sl2vl: [{input_port: 0, output_port: 0, vl: HUGE_BYTES}]}),
      C.INVALID_ARGUMENT],
    ['Management', sw, 'WriteTables', 'AR group 2^32-1', write({ar_groups: [{group: U32, ports: [1]}]}), C.INVALID_ARGUMENT],
    ['Management', sw, 'WriteTables', 'direction port 2^31', write({direction_ports: {ports: [U31]}}), C.INVALID_ARGUMENT],
    ['Management', sw, 'WriteTables', 'wrong key', write({m_key: WRONG, lft_blocks: [block(0, ok64)]}), C.PERMISSION_DENIED],
    ['Management', sw, 'GetPortCounters', 'port 2^31', {port_number: U31}, C.NOT_FOUND],
    ['Management', sw, 'GetFlowCounters', 'of a switch', {}, C.FAILED_PRECONDITION],
    ['Management', ca, 'WriteSourceRoutes', 'LID 2^31', {m_key: KEY, routes: [{dlid: U31, directions: Buffer.from([0])}]},
      C.INVALID_ARGUMENT],
    ['Management', ca, 'WriteSourceRoutes', '64 KB of directions', {m_key: KEY, routes: [{dlid: 5, directions: HUGE_BYTES}]},
      C.INVALID_ARGUMENT],
    ['Management', ca, 'WriteSourceRoutes', 'wrong key', {m_key: WRONG, routes: []}, C.PERMISSION_DENIED],
    ['Management', sw, 'WriteSourceRoutes', 'to a switch', {m_key: KEY, routes: []}, C.FAILED_PRECONDITION],
    ['Management', sw, 'GetSourceRoutes', 'of a switch', {}, C.FAILED_PRECONDITION],
    ['Management', sw, 'ResetPortCounters', 'port 2^31', {m_key: KEY, port_number: U31}, C.NOT_FOUND],
    ['Management', sw, 'ResetPortCounters', 'wrong key', {m_key: WRONG, port_number: 1}, C.PERMISSION_DENIED],
    ['Management', sw, 'SetSmInfo', 'priority 16', {m_key: KEY, priority: 16}, C.INVALID_ARGUMENT],
    ['Management', sw, 'SetSmInfo', 'priority 2^32-1', {m_key: KEY, priority: U32}, C.INVALID_ARGUMENT],
    ['Management', sw, 'SetSmInfo', 'state 99', {m_key: KEY, state: 99}, C.INVALID_ARGUMENT],
    ['Management', sw, 'SetSmInfo', 'an impostor', {m_key: WRONG, sm_guid: '1', priority: 15, state: 'SM_STATE_MASTER', new_m_key: WRONG},
      C.PERMISSION_DENIED],
    ['Management', sw, 'GetEmulationStatus', 'window 2^32-1 ms (the longest window)', {window_ms: U32}, C.OK],
    ['Management', sw, 'SetTimeDilation', 'dilation NaN', {m_key: KEY, dilation: NaN}, C.INVALID_ARGUMENT],
    ['Management', sw, 'SetTimeDilation', 'dilation 1e9', {m_key: KEY, dilation: 1e9}, C.INVALID_ARGUMENT],
    ['Management', sw, 'SetTimeDilation', 'wrong key', {m_key: WRONG, dilation: 2}, C.PERMISSION_DENIED],
    ['Admin', admin, 'TraceRoute', '64 KB source', {source: HUGE, destination: 'L0_H0'}, C.INVALID_ARGUMENT],
    ['Admin', admin, 'TraceRoute', 'a switch as source', {source: 'L0', destination: 'L0_H0'}, C.INVALID_ARGUMENT],
    ['Admin', admin, 'DumpTables', '64 KB name', {switch_name: HUGE}, C.INVALID_ARGUMENT],
    ['Admin', admin, 'GetCounters', '64 KB name', {node: HUGE}, C.INVALID_ARGUMENT],
    ['Admin', admin, 'SetEngine', '64 KB chain', {chain: HUGE}, C.INVALID_ARGUMENT, config.adminToken],
    ['Admin', admin, 'SetEngine', 'an unknown engine', {chain: 'minhopp'}, C.INVALID_ARGUMENT, config.adminToken],
    ['Admin', admin, 'SetEngine', 'without the token', {chain: 'updn'}, C.UNAUTHENTICATED],
    ['Admin', admin, 'RouteJob', '64 KB node set', {nodes: HUGE}, C.INVALID_ARGUMENT, config.adminToken],
    ['Admin', admin, 'RouteJob', 'an open range', {nodes: 'L0_H[0-'}, C.INVALID_ARGUMENT, config.adminToken],
    ['Admin', admin, 'RouteJob', 'without the token', {nodes: ''}, C.UNAUTHENTICATED],
    ['Admin', admin, 'Sweep', 'without the token', {}, C.UNAUTHENTICATED],
    ['Admin', admin, 'Sweep', 'a wrong token', {}, C.UNAUTHENTICATED, 'not-the-token-0123456789'],
    ['Admin', admin, 'GetQTable', 'of a fabric without Q-adaptive', {switch: 'L0'}, C.FAILED_PRECONDITION],
    ['Admin', admin, 'GetQTable', 'row 2^32-1', {switch: 'L0', row: {group: U32, slot: 0}}, C.FAILED_PRECONDITION],
    ['Admin', admin, 'SaveQTableSnapshot', 'a path as the name', {name: '../m-key'}, C.INVALID_ARGUMENT, config.adminToken],
    ['Admin', admin, 'SaveQTableSnapshot', '64 KB name', {name: HUGE}, C.INVALID_ARGUMENT, config.adminToken],
    ['Admin', admin, 'SaveQTableSnapshot', 'without the token', {name: 'a'}, C.UNAUTHENTICATED],
    ['Admin', admin, 'RestoreQTableSnapshot', 'an empty name', {name: ''}, C.INVALID_ARGUMENT, config.adminToken],
    ['Admin', admin, 'RestoreQTableSnapshot', 'without the token', {name: 'a'}, C.UNAUTHENTICATED],
    ['Admin', admin, 'ReseedQTables', 'an unknown policy', {policy: HUGE}, C.INVALID_ARGUMENT, config.adminToken],
    ['Admin', admin, 'ReseedQTables', 'on a fabric without Q-adaptive', {policy: 'zero'}, C.FAILED_PRECONDITION, config.adminToken],
  ];
  const results = [];
  const record = (service, method, name, expected, s) => results.push({
    service, method, name, expected, code: s.code, codeName: Object.keys(C).find((k) => C[k] === s.code),
    detailsLength: s.details.length, details: s.details.slice(0, 300),
  });
  for (const [service, c, method, name, request, expected, token] of cases) {
    record(service, method, name, expected, await unary(c, method, request, token));
  }
  for (const [service, c, token] of [['Management', sw, undefined], ['Admin', admin, config.adminToken]]) {
    for (const [method, d] of Object.entries(v1[service].service)) {
      record(service, method, 'bytes that are no message', C.INVALID_ARGUMENT, await raw(c, d.path, d.responseStream, GARBAGE, token));
    }
  }
  process.stdout.write(JSON.stringify(results) + '\n');
  for (const c of [sw, ca, admin]) {
    c.close();
  }
}

main().catch((e) => {
  process.stderr.write('grpc-bad-input.js: ' + (e && e.stack ? e.stack : e) + '\n');
  process.exit(1);
});
