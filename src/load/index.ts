/** Public surface of `fanlake load`. */
export { loadWarehouse, LOAD_STATUSES } from './load-warehouse.js';
export type { LoadEvent, LoadStatus, LoadWarehouseOptions, TableLoadResult } from './load-warehouse.js';
