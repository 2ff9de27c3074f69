-- One row per payment; paid_at is NULL while a payment is pending.
select
    payment_id,
    order_id,
    lower(trim(method))     as method,
    amount,
    paid_at
from {{ ref('payments') }}
