// Starts GraphiQL against this service's /graphql. A file the service serves, not an inline
// script, so that the page's Content-Security-Policy can refuse every inline script.
'use strict';

const fetcher = GraphiQL.createFetcher({ url: new URL('/graphql', location.href).href });
ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, { fetcher }));
