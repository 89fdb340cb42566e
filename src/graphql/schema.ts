/** The GraphQL schema: each component's types and queries, registered on the builder by import. */
import { builder } from '../platform/graphql/builder.js';
import '../components/articles/articles.graphql.js';
import '../components/reference/reference.graphql.js';
import '../components/stock/stock.graphql.js';
import '../components/purchase-orders/purchase-orders.graphql.js';
import '../components/receptions/receptions.graphql.js';
import '../components/sales-orders/sales-orders.graphql.js';
import '../components/sales-orders/shipments.graphql.js';
import '../components/returns/returns.graphql.js';
import '../components/stock-adjustments/stock-adjustments.graphql.js';
import '../components/stock-transfers/stock-transfers.graphql.js';
import '../components/lots/lots.graphql.js';

export const schema = builder.toSchema({ sortSchema: true });
