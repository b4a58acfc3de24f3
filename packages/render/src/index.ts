export { renderNatTable } from "./nft/nat-table.js";
export { renderFilterTable, type ServiceHole } from "./nft/filter-table.js";
export { defaultSelection, renderPolicyTable, type EgressSelection } from "./nft/policy-table.js";
export { renderTable, type Chain, type NftSetDef } from "./nft/text.js";
export { renderDesiredTables, type TableRenderInput, type RenderedTable } from "./nft/tables.js";
export { INTERFACE, PATHS, PROGRAMS, instanceEnvFile, unitName, type ProgramSpec } from "./units/programs.js";
export { renderSystemdUnit, systemdUnits } from "./units/systemd.js";
export { rcScripts, renderRcScript } from "./units/rc.js";
export { SECTIONS as DNSMASQ_SECTIONS, renderDnsmasqConfig, type DnsmasqContext } from "./dnsmasq/config.js";
